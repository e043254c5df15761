import StrataCore
import StrataSystem

/// One part's bytes in a streamed write: a fixed block of exactly one part, mapped once (`mmap`, anonymous) and
/// reused from part to part through ``S3PartPool``, then unmapped when the write ends.
///
/// Mapped, not allocated with `malloc` or grown as an array: only the pages a write touches become resident (a
/// small body costs its own size), a part never grows by doubling (no old copies left in the allocator's free
/// lists), and the memory goes back to the system when the buffer is freed — the allocator's per-thread arenas
/// and its moving `mmap` threshold never keep it.
///
/// The buffer hashes its bytes as they are copied in (``payloadHash()``): the SHA-256 a part's signature carries is
/// ready when the part is full, computed while each piece is still in the processor's cache, and the part's upload
/// thread starts sending at once instead of reading the whole part a second time first.
///
/// `@unchecked Sendable`: a buffer belongs to one thread at a time. The writer fills it, hands it to
/// ``S3PartUploads``, whose upload thread gives it back to the pool when the part is sent; the pool's mutex orders
/// each hand-over.
final class S3PartBuffer: @unchecked Sendable {
    /// The mapped block: ``capacity`` bytes.
    private let memory: UnsafeMutableRawBufferPointer
    /// How many bytes the buffer holds so far.
    private(set) var count = 0
    /// The SHA-256 of the bytes held, fed as they are copied in.
    private let digest: S3Digest
    /// The hex SHA-256 of the bytes held, once ``payloadHash()`` worked it out.
    private var hashOfBytes: String?

    /// Maps a block of `capacity` bytes (nothing becomes resident until written).
    /// - Throws: `StorageError` `.io` with the `errno` (`ENOMEM`) when the system refuses the mapping, or when
    ///   libcrypto cannot start a SHA-256.
    init(capacity: Int) throws(StorageError) {
        let length = max(capacity, 1)
        digest = try S3Digest()
        do throws(Errno) {
            memory = UnsafeMutableRawBufferPointer(start: try Sys.mapAnonymous(length: length), count: length)
        } catch {
            var failure = error.storageError("cannot map memory for a part of \(length) bytes", tier: .files)
            failure.recovery = "Free memory, or lower S3Configuration.writeBufferLimit (each write holds that much)"
            throw failure
        }
    }

    deinit { Sys.unmap(memory.baseAddress!, length: memory.count) }

    /// The size of the block: the most bytes the buffer holds.
    var capacity: Int { memory.count }
    var isFull: Bool { count == memory.count }
    var isEmpty: Bool { count == 0 }

    /// The bytes held, valid while the buffer is not refilled.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[0..<count]) }

    /// Copies as many of `source`'s bytes as fit, and hashes them.
    /// - Returns: How many were copied.
    func append(_ source: UnsafeRawBufferPointer) -> Int {
        let taken = min(source.count, memory.count - count)
        guard taken > 0 else { return 0 }
        let target = UnsafeMutableRawBufferPointer(rebasing: memory[count..<count + taken])
        target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<taken]))
        digest.add(UnsafeRawBufferPointer(target))
        count += taken
        hashOfBytes = nil
        return taken
    }

    /// The hex SHA-256 of the bytes held (what the part's signature carries), without reading them again.
    /// - Throws: `StorageError` `.io` when libcrypto failed.
    func payloadHash() throws(StorageError) -> String {
        if let hashOfBytes { return hashOfBytes }
        let hash = Hex.encode(try digest.result())
        hashOfBytes = hash
        return hash
    }

    /// Empties the buffer for the next part; its pages stay mapped (and resident) for reuse.
    func removeAll() {
        count = 0
        hashOfBytes = nil
        digest.reset()
    }
}
