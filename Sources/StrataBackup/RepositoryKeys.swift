import StrataCore
import StrataSecrets

/// The keys derived from a repository's master key, each with its own purpose (keyed BLAKE2b of a label under
/// the master key): sealing files and blobs, naming blobs, and the chunker's gear table.
struct RepositoryKeys: Sendable {
    /// Seals blobs, pack headers, indexes, snapshots and the configuration.
    let seal: [UInt8]
    /// Keys the BLAKE2b-256 that names blobs.
    let blobID: [UInt8]
    /// Seeds the chunker's gear table.
    let gear: [UInt8]

    init(master: [UInt8]) {
        func derive(_ label: String) -> [UInt8] {
            master.withUnsafeBytes { Sodium.keyedHash(Array(label.utf8), key: $0, length: Sodium.keyBytes) }
        }
        seal = derive("strata-backup seal v1")
        blobID = derive("strata-backup blob id v1")
        gear = derive("strata-backup gear v1")
    }

    /// The id of a blob with this plaintext, hashed where it lies (a chunk being written).
    func id(of bytes: [UInt8]) -> BlobID {
        BlobID(blobID.withUnsafeBytes { Sodium.keyedHash(bytes, key: $0, length: 32) })!
    }

    /// The id of a blob with this plaintext.
    func id(of bytes: UnsafeRawBufferPointer) -> BlobID {
        let digest = blobID.withUnsafeBytes { Sodium.keyedHash(bytes, key: $0, length: 32) }
        return BlobID(digest)!
    }

    /// The chunker's 256 gear words: keyed BLAKE2b-512 of a counter, 8 words per hash.
    func gearTable() -> [UInt64] {
        var table: [UInt64] = []
        table.reserveCapacity(256)
        for block in 0..<32 {
            let digest = gear.withUnsafeBytes { Sodium.keyedHash([UInt8(block)], key: $0, length: 64) }
            for word in 0..<8 {
                table.append(digest[(word * 8)..<(word * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
        }
        return table
    }
}
