public import Foundation
import Synchronization

/// A secret value: bytes that never print. `description`, `debugDescription` and reflection all show
/// `<redacted>`, and the bytes are zeroed when the last copy goes away.
///
/// ```swift
/// let token = Secret("tok_live_8c1f2a")
/// print(token)                    // <redacted>
/// let header = "Bearer " + token.stringValue!
/// ```
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let storage: SecretBytes

    /// A secret holding these bytes.
    public init(_ data: Data) { storage = SecretBytes(data) }

    /// A secret holding the UTF-8 bytes of a string.
    public init(_ string: String) { storage = SecretBytes(Data(string.utf8)) }

    init(bytes: UnsafeRawBufferPointer) { storage = SecretBytes(bytes) }

    /// A secret of `count` bytes written in place by `fill` (so a decrypted value is never copied).
    package init(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        storage = try SecretBytes.filled(count: count, fill)
    }

    /// The number of bytes.
    public var count: Int { storage.count }

    /// A copy of the bytes. The copy is an ordinary `Data`, not wiped: prefer ``withUnsafeBytes(_:)``.
    public var data: Data { storage.withBytes { Data($0) } }

    /// The bytes as UTF-8 text, or `nil` when they are not valid UTF-8.
    public var stringValue: String? { storage.withBytes { String(validating: $0, as: UTF8.self) } }

    /// Lends the bytes to `body` without copying them.
    public func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try storage.withBytes(body)
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "Secret(<redacted>, \(count) bytes)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Compares in constant time.
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        lhs.storage.withBytes { left in
            rhs.storage.withBytes { right in
                guard left.count == right.count else { return false }
                var difference: UInt8 = 0
                for index in 0..<left.count { difference |= left[index] ^ right[index] }
                return difference == 0
            }
        }
    }

    /// Hashes the length only, so a hash table never becomes an oracle on the bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(count) }
}
