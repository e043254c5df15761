internal import CStrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A change counter shared by every process that has a store open: one 64-bit word in a small file mapped with
/// `MAP_SHARED` (`<root>/catalog/sequence` for the catalog, `<suite>.plist.changes` beside a defaults suite).
///
/// A writer bumps it after its change is in place. A reader compares it with the value it last caught up to: one
/// atomic load, a few nanoseconds, so a read costs almost nothing while nobody writes, and sees another process's
/// change as soon as the writer has made it.
package final class SharedCounter: Sendable {
    private static let length = 4096
    // The mapping lives as long as this object; the address is only read and bumped atomically through
    // CStrataSystem's helpers, so sharing it between threads is safe.
    private nonisolated(unsafe) let address: UnsafeMutableRawPointer

    /// Maps the open regular file `fd` (grown to the counter's length when shorter); the caller keeps `fd` and
    /// closes it (the mapping outlives it).
    /// - Throws: ``Errno`` from `fstat`, `ftruncate` or `mmap`.
    package init(mapping fd: FileDescriptor, path: String) throws(Errno) {
        let info = try Sys.fstat(fd)
        if info.st_size < Self.length { try Sys.ftruncate(fd, Int64(Self.length)) }
        address = try Sys.mapShared(fd, length: Self.length, path: path)
    }

    deinit { Sys.unmap(address, length: Self.length) }

    /// The current value.
    package var value: UInt64 { strata_shared_load(address) }

    /// Adds one and returns the new value.
    @discardableResult
    package func bump() -> UInt64 { strata_shared_increment(address) }

    /// Subtracts one, unless the value is 0, and returns the new value: for a counter that counts holders of
    /// something (the catalog's observers), which a holder that died never gives back.
    @discardableResult
    package func decrement() -> UInt64 { strata_shared_decrement(address) }
}
