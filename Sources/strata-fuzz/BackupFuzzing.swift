// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    import StrataCore
    @testable import StrataBackup

    /// What the fuzz target `backup-metadata` calls: the decoders of a backup repository's index files and snapshot
    /// files, on hostile bytes as they are once a sealed file is opened (whoever holds a repository key can seal any).
    enum BackupFuzzing {
        /// The largest chunk the index records are checked against: the default repository's.
        static let maximumChunk = BackupOptions().maximumChunk

        /// Decodes `data` as a snapshot's body (whole and header only, in either format) and as an index file's, and
        /// checks what decodes: a snapshot encodes and decodes again to the same bytes, its header read alone agrees
        /// with the whole, its files add up to its size; index records encode and decode again to themselves.
        static func metadata(_ data: Data) {
            // JSON is parsed by Foundation, which the fuzzer cannot see into: inputs starting `V` choose the fields of a
            // format 1 snapshot instead, which is then encoded as JSON.
            if data.first == UInt8(ascii: "V") { return metadata(formatOne(from: data.dropFirst())) }
            let body = [UInt8](data)
            let header = try? SnapshotManifest.decode(anyFormat: body, headerOnly: true, path: "fuzz")
            if let manifest = try? SnapshotManifest.decode(anyFormat: body, headerOnly: false, path: "fuzz") {
                guard let header, header.summary(id: "") == manifest.summary(id: "") else {
                    fatalError("a snapshot's header read alone disagrees with the whole: \(manifest.summary(id: ""))")
                }
                guard manifest.fileCount == manifest.files.count,
                    manifest.totalSize == manifest.files.reduce(0, { $0 + $1.file.size })
                else { fatalError("a snapshot's files do not add up to its header") }
                let encoded = manifest.encoded()
                guard let again = try? SnapshotManifest.decode(encoded, headerOnly: false, path: "fuzz"),
                    again.encoded() == encoded
                else { fatalError("a snapshot that decodes does not decode again from its own encoding") }
            }
            if let records = try? RepositoryIndex.decode(body, maximumChunk: maximumChunk, path: "fuzz") {
                guard let encoded = try? JSONEncoder().encode(records),
                    let again = try? RepositoryIndex.decode(Array(encoded), maximumChunk: maximumChunk, path: "fuzz"),
                    again == records
                else { fatalError("index records that decode do not decode again from their own encoding") }
                var index = RepositoryIndex()
                index.add(records)
            }
        }

        /// A format 1 snapshot body whose every field `choices` picks from values at the edges (0, -1, the extremes of
        /// 32 and 64 bits, a nanosecond past a second, times outside 1970–9999), with up to three files.
        static func formatOne(from choices: Data) -> Data {
            var next = choices.makeIterator()
            func pick<T>(_ values: [T]) -> T { values[Int(next.next() ?? 0) % values.count] }
            let integers: [Int64] = [0, 1, -1, .min, .max, 1 << 31, -(1 << 31), 999_999_999, 1_000_000_000, 1 << 53]
            let times: [Double] = [0, 1.7e9, -1, 253_402_300_799, 253_402_300_800, 1e300, -1e300, 0.5]
            let chunk = String(repeating: "ab", count: 32)
            let files = (0..<pick([0, 1, 2, 3])).map { index in
                SnapshotManifestV1.Entry(
                    path: pick(["files/a", "files/a", "", "x/../y", "files/\(index)"]),
                    tier: pick([nil, "files", "secrets", "bogus"]), mode: UInt32(truncatingIfNeeded: pick(integers)),
                    size: pick(integers),
                    modificationTime: .init(
                        seconds: pick(integers), nanoseconds: Int32(truncatingIfNeeded: pick(integers))),
                    extendedAttributes: pick([[:], ["user.a": "AQID"], ["user.a": "not base64!"]]),
                    chunks: Array(repeating: pick([chunk, "zz", chunk.uppercased()]), count: pick([0, 1, 2, 40])))
            }
            let manifest = SnapshotManifestV1(
                version: pick([1, 1, 2]), time: pick(times), host: "h", parent: pick([nil, "p"]), metadata: [:],
                files: files, reusedFiles: Int(pick(integers)), addedBlobs: Int(pick(integers)),
                addedBytes: pick(integers))
            return (try? JSONEncoder().encode(manifest)) ?? Data()
        }
    }
#endif
