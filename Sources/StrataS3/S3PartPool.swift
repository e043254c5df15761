import Dispatch
import StrataCore
import Synchronization

/// The part buffers of one streamed write: at most `capacity` of them, each mapped when first needed (exactly one
/// part, its pages resident only once written) and then reused for every later part, so that a write of any length
/// holds at most `capacity × bufferSize` bytes and does not map (and fault in) a new part for each one.
/// ``take()`` waits while every buffer is in use. The buffers are unmapped when the pool and the write let go of
/// them.
final class S3PartPool: Sendable {
    private struct State {
        var free: [S3PartBuffer] = []
        var allocations = 0
    }

    /// The most buffers the pool hands out at once.
    let capacity: Int
    /// The size of each buffer: one part.
    let bufferSize: Int
    private let available: DispatchSemaphore
    private let state = Mutex(State())
    /// Where the pool reports each buffer it maps, with the bytes it holds after mapping it (the engine's counters).
    private let counter: @Sendable (_ buffers: Int, _ heldBytes: Int) -> Void

    init(capacity: Int, bufferSize: Int, counter: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) {
        self.capacity = max(capacity, 1)
        self.bufferSize = max(bufferSize, 1)
        // Created at zero and raised: libdispatch traps when a semaphore is freed below its initial value, and a
        // write ends holding the buffer it was filling.
        self.available = DispatchSemaphore(value: 0)
        for _ in 0..<max(capacity, 1) { available.signal() }
        self.counter = counter
    }

    /// How many buffers the pool has mapped so far (never more than ``capacity``).
    var allocations: Int { state.withLock { $0.allocations } }

    /// The bytes the pool's buffers hold (mapped, at most `capacity × bufferSize`).
    var heldBytes: Int { allocations * bufferSize }

    /// An empty buffer, once one is free.
    /// - Throws: `StorageError` when a new buffer cannot be mapped.
    func take() throws(StorageError) -> S3PartBuffer {
        available.wait()
        if let buffer = state.withLock({ $0.free.popLast() }) { return buffer }
        let buffer: S3PartBuffer
        do {
            buffer = try S3PartBuffer(capacity: bufferSize)
        } catch {
            available.signal()
            throw error
        }
        let allocations = state.withLock {
            $0.allocations += 1
            return $0.allocations
        }
        counter(1, allocations * bufferSize)
        return buffer
    }

    /// Takes back a buffer (its part sent or abandoned), emptied but with its memory kept for the next part.
    func giveBack(_ buffer: S3PartBuffer) {
        buffer.removeAll()
        state.withLock { $0.free.append(buffer) }
        available.signal()
    }
}
