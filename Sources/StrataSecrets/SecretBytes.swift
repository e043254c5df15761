import Foundation
import Synchronization

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
