internal import CStrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The catalog's change counter, shared by every process that has the store open: one 64-bit word in a small
/// file (`<root>/catalog/sequence`) mapped with `MAP_SHARED`.
///
/// Every append to the log and every compaction bumps it, after the bytes are in the log. A reader compares it
/// with the value it last caught up to: one atomic load, a few nanoseconds, so a read through the catalog costs
/// almost nothing while nobody writes, and sees another process's change as soon as it is made.
final class CatalogSequence: Sendable {
    private static let length = 4096
    // The mapping lives as long as this object; the address is only read and bumped atomically through
    // CStrataSystem's helpers, so sharing it between threads is safe.
    private nonisolated(unsafe) let address: UnsafeMutableRawPointer

    init(path: String) throws {
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600)
        } catch {
            throw error.storageError("cannot open the catalog's change counter", path: path)
        }
        defer { Sys.close(fd) }
        do {
            let info = try Sys.fstat(fd)
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw StorageError(.corrupt, "the catalog's change counter is not a regular file", path: path)
            }
            if info.st_size < Self.length { try Sys.ftruncate(fd, Int64(Self.length)) }
            address = try Sys.mapShared(fd, length: Self.length, path: path)
        } catch let error as Errno {
            throw error.storageError("cannot map the catalog's change counter", path: path)
        }
    }

    deinit { Sys.unmap(address, length: Self.length) }

    /// The current value.
    var value: UInt64 { strata_shared_load(address) }

    /// Adds one and returns the new value.
    @discardableResult
    func bump() -> UInt64 { strata_shared_increment(address) }
}
