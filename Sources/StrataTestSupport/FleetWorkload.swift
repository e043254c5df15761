public import Foundation
public import StrataCore

/// The values the fleet linearizability test's workers write and read, so that workers and the test agree on them:
/// each names itself (its first line is its identifier, which ends with its size), so a read tells which put it
/// saw, and a torn or mixed value reads as an identifier no put wrote.
public enum FleetWorkload {
    /// The sizes of a put (see ``value(id:size:)``): a preference 2 times in 8, a credential once (a key holding
    /// one refuses every other kind until it is deleted, so more would leave fewer moves to test), a record 3 times,
    /// a file 2 times.
    public static func size(using generator: inout some RandomNumberGenerator) -> Int {
        switch Int.random(in: 0..<8, using: &generator) {
        case 0, 1: Int.random(in: 16...23, using: &generator)
        case 2: Int.random(in: 24...31, using: &generator)
        case 3, 4, 5: Int.random(in: 32...200, using: &generator)
        default: Int.random(in: 100_000...300_000, using: &generator)
        }
    }

    /// The few keys every worker hits.
    public static let keys = ["hot-0", "hot-1", "hot-2"]

    /// The prefix the keys share (for listings).
    public static let prefix = "hot-"

    /// A value of `size` bytes for put `id`, and its identifier (`id:size`). Under 24 bytes a value is a preference
    /// (defaults), from 24 to 31 a credential (secrets), up to 100 KB a record, and from 100 KB a file: puts cross
    /// every tier boundary of a shared store.
    public static func value(id: String, size: Int) -> (identifier: String, data: Data, descriptor: DataDescriptor) {
        let identifier = "\(id):\(size)"
        let header = Data((identifier + "\n").utf8)
        let filler = Data(repeating: UInt8(truncatingIfNeeded: size), count: max(0, size - header.count))
        let data = header + filler
        let kind: DataKind =
            switch size {
            case ..<24: .preference
            case ..<32: .credential
            case ..<100_000: .relational
            default: .file
            }
        let descriptor = DataDescriptor(kind: kind, estimatedSize: data.count)
        return (identifier, data, descriptor)
    }

    /// The identifier a value read back names, or `corrupt:` and what it holds when it is not one whole value.
    public static func identifier(of data: Data) -> String {
        guard let newline = data.firstIndex(of: 0x0A) else { return "corrupt:\(data.count) bytes, no header" }
        let identifier = String(decoding: data[..<newline], as: UTF8.self)
        guard let size = identifier.split(separator: ":").last.flatMap({ Int($0) }),
            value(id: String(identifier.dropLast(String(size).count + 1)), size: size).data == data
        else { return "corrupt:\(identifier) (\(data.count) bytes)" }
        return identifier
    }
}
