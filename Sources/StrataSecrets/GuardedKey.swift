package import Foundation
package import StrataCore
import Synchronization

/// Key material in libsodium's guarded memory: its own pages, guard pages around them and a canary, locked in
/// RAM (never swapped), and read-only once written. ``wipe()`` zeroes and frees it; so does deinit.
///
/// The pages stay readable between uses rather than being toggled to no-access around each use: toggling costs
/// two `mprotect` calls per use, which would dominate a warm read of a small secret.
package final class GuardedKey: Sendable {
    package let count: Int
    // The guarded allocation, or `nil` once wiped. Guarded by the mutex, which also serializes the page
    // protection changes of `withBytes`.
    private let storage: Mutex<UInt?>  // The address as an integer: raw pointers are not Sendable.

    /// Allocates `count` bytes and lets `fill` write them.
    package init(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        try Sodium.ensureReady()
        guard let pointer = Sodium.guardedAllocate(count) else {
            throw StorageError(.io, "cannot allocate guarded memory for a key", tier: .secrets)
        }
        do {
            try fill(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        } catch {
            Sodium.guardedFree(pointer)
            throw error
        }
        Sodium.guardedReadOnly(pointer)
        self.count = count
        self.storage = Mutex(UInt(bitPattern: pointer))
    }

    /// A fresh random key.
    package static func random(_ count: Int = Sodium.keyBytes) throws -> GuardedKey {
        try GuardedKey(count: count) { Sodium.randomFill($0) }
    }

    /// Copies bytes in (the caller should wipe its copy).
    package convenience init(copying bytes: [UInt8]) throws {
        try self.init(count: bytes.count) { buffer in buffer.copyBytes(from: bytes) }
    }

    package var isWiped: Bool { storage.withLock { $0 == nil } }

    private static func pointer(_ address: UInt) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: address)!
    }

    /// Lends the key's bytes to `body`.
    /// - Throws: ``StorageError`` `.locked` when the key was wiped, or what `body` throws.
    package func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        try storage.withLock { address in
            guard let address else {
                throw StorageError(
                    .locked, "the key was wiped by lock()", tier: .secrets, recovery: "Unlock the store again")
            }
            return try body(UnsafeRawBufferPointer(start: Self.pointer(address), count: count))
        }
    }

    /// Derives a subkey: keyed BLAKE2b of a label under this key, into new guarded memory.
    package func derive(_ label: String) throws -> GuardedKey {
        try withBytes { key in
            try GuardedKey(count: Sodium.keyBytes) { output in
                Sodium.keyedHash(Array(label.utf8), key: key, into: output)
            }
        }
    }

    /// A copy of some of the key's bytes, in new guarded memory.
    package func slice(_ range: Range<Int>) throws -> GuardedKey {
        try withBytes { bytes in
            try GuardedKey(count: range.count) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[range])) }
        }
    }

    /// A public check value of the key: a keyed hash of a fixed label, which tells keys apart without revealing
    /// them.
    package func check() throws -> [UInt8] {
        try withBytes { Sodium.keyedHash(Array("strata key check".utf8), key: $0, length: 16) }
    }

    /// Zeroes and frees the key now. Calling it again does nothing.
    package func wipe() {
        storage.withLock { address in
            if let allocated = address { Sodium.guardedFree(Self.pointer(allocated)) }  // sodium_free zeroes first.
            address = nil
        }
    }

    deinit { wipe() }
}
