public import Foundation
public import StrataCore

/// The writes that the `Storage` process tests and their children share, so both sides agree on every value.
public enum StorageWorkload {
    /// The descriptor of move number `index`: it cycles through the four tiers (defaults, secrets, files,
    /// records), each allowed to replace a credential in plaintext (the workload takes keys out of secrets on
    /// purpose).
    public static func moveDescriptor(_ index: Int) -> DataDescriptor {
        switch index % 4 {
        case 0: DataDescriptor(kind: .preference, estimatedSize: 16, allowsPlaintext: true)
        case 1: DataDescriptor(kind: .credential, estimatedSize: 16)
        case 2: DataDescriptor(kind: .file, estimatedSize: 16, contentType: "application/pdf", allowsPlaintext: true)
        default: DataDescriptor(kind: .structured, estimatedSize: 16, isQueried: true, allowsPlaintext: true)
        }
    }

    /// The value of move number `index`.
    public static func moveValue(_ index: Int) -> Data { Data("move-\(index)".utf8) }

    /// The value process `process` writes to contended key `key` in `round`, and its descriptor: preferences
    /// whose size alternates across the 1 MiB defaults budget (so they alternate between defaults and files),
    /// and credentials (secrets); a preference may replace a credential in plaintext.
    public static func contendedWrite(process: Int, round: Int, key: Int) -> (value: Data, descriptor: DataDescriptor) {
        let tag = Data("\(process):\(round):\(key);".utf8)
        if (round + process) % 2 == 1 {
            return (tag, DataDescriptor(kind: .credential, estimatedSize: tag.count))
        }
        let size = (round + key + process) % 2 == 0 ? 64 : (1 << 20) + 1
        return (
            tag + Data(count: size - tag.count),
            DataDescriptor(kind: .preference, estimatedSize: size, allowsPlaintext: true)
        )
    }
}
