package import Foundation
package import StrataCore
import StrataSystem

/// `items.anchor`: the sequence number of the last item manifest made durable, kept beside it, so that an older
/// `items.manifest` put back alone (which would bring back revoked values of the items it holds) is refused.
///
/// Every manifest a writer makes carries a sequence number one past the last (``ItemManifest/sequence``). Once the
/// manifest is durable (renamed and the folder flushed), the writer records its number here; so on disk the anchor
/// is never ahead of the manifest, also after a crash, and a reader that reads the anchor before the manifest
/// finds a manifest at least as new. A manifest older than the anchor is a rollback. The anchor itself is replaced
/// without a flush of its own: lost in a crash, it only lags, and a lagging anchor vouches for less, never refuses
/// a current manifest. Putting back an older anchor with the older manifest is the rollback of the whole folder,
/// which no file inside it can detect.
///
/// `STRATASA`, a version byte (1), the keyring's id, the sequence number (8 bytes, big-endian) and a CRC-32C of the
/// bytes before it. A file of another shape or keyring is ignored, as a missing one is: it vouches for nothing.
package struct ManifestAnchor: Sendable, Equatable {
    static let fileName = "items.anchor"
    package static let magic = Array("STRATASA".utf8)
    static let version: UInt8 = 1

    package var sequence: UInt64

    package init(sequence: UInt64) { self.sequence = sequence }

    package func serialized(keyringID: [UInt8]) -> Data {
        var bytes = Self.magic + [Self.version] + keyringID
        withUnsafeBytes(of: sequence.bigEndian) { bytes += $0 }
        withUnsafeBytes(of: CRC32C.checksum(bytes).bigEndian) { bytes += $0 }
        return Data(bytes)
    }

    /// The anchor the bytes hold, or `nil` when they are not one of this keyring's.
    package static func parse(_ data: Data, keyringID: [UInt8]) -> ManifestAnchor? {
        let bytes = [UInt8](data)
        let sequenceStart = magic.count + 1 + keyringID.count
        guard bytes.count == sequenceStart + 12, bytes.starts(with: magic), bytes[magic.count] == version,
            Array(bytes[(magic.count + 1)..<sequenceStart]) == keyringID
        else { return nil }
        let checksum = bytes[(sequenceStart + 8)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard CRC32C.checksum(Array(bytes[..<(sequenceStart + 8)])) == checksum else { return nil }
        return ManifestAnchor(
            sequence: bytes[sequenceStart..<(sequenceStart + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}
