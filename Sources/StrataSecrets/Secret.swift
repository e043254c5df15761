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
    init(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
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

/// The heap bytes behind a ``Secret``, zeroed at deinit.
final class SecretBytes: Sendable {
    let count: Int
    // Written once in init; read-only afterwards, zeroed in deinit when no one else can reach it.
    private nonisolated(unsafe) let pointer: UnsafeMutableRawBufferPointer

    init(_ data: Data) {
        count = data.count
        pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { pointer.copyMemory(from: $0) }
    }

    /// Fills a new buffer before the object exists, so a failing `fill` frees it exactly once (a class whose
    /// initializer throws after initializing every property would also run `deinit`).
    static func filled(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws -> SecretBytes {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        do {
            try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            Sodium.memzero(buffer)
            buffer.deallocate()
            throw error
        }
        return SecretBytes(taking: buffer, count: count)
    }

    private init(taking buffer: UnsafeMutableRawBufferPointer, count: Int) {
        self.count = count
        pointer = buffer
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        if bytes.count > 0 { pointer.copyMemory(from: bytes) }
    }

    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(rebasing: pointer[0..<count]))
    }

    deinit {
        Sodium.memzero(pointer)
        pointer.deallocate()
    }
}
