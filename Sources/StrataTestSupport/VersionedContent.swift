public import Foundation

/// A small seeded generator (xorshift), so random kill moments and damaged inputs are reproducible.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed | 1 }
    public mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

/// Content whose every version is recognizable whole: a header line `version N`, then `size` bytes all equal to
/// `N`. A torn or mixed file never parses as a version.
public enum VersionedContent {
    public static func make(version: Int, size: Int) -> Data {
        Data("version \(version)\n".utf8) + Data(repeating: UInt8(truncatingIfNeeded: version), count: size)
    }

    /// The version `data` holds, or `nil` when it is not exactly one whole version.
    public static func version(of data: Data, size: Int) -> Int? {
        guard let newline = data.firstIndex(of: 0x0A),
            let version = Int(String(decoding: data[..<newline], as: UTF8.self).dropFirst("version ".count))
        else { return nil }
        let body = data[(newline + 1)...]
        guard body.count == size, body.allSatisfy({ $0 == UInt8(truncatingIfNeeded: version) }) else { return nil }
        return version
    }
}
