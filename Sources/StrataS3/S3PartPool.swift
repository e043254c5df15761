import Dispatch
import Synchronization

/// The part buffers of one streamed write: at most `capacity` of them, each allocated when first needed (it grows
/// to a part as the writer fills it) and then reused for every later part, so that a write of any length holds a
/// fixed amount of memory and does not allocate (and fault in) a new part for each one. ``take()`` waits while
/// every buffer is in use.
final class S3PartPool: Sendable {
    private struct State {
        var free: [S3PartBuffer] = []
        var allocations = 0
    }

    /// The most buffers the pool hands out at once.
    let capacity: Int
    private let available: DispatchSemaphore
    private let state = Mutex(State())
    /// Where the pool counts its allocations too (the engine's running total).
    private let counter: @Sendable (Int) -> Void

    init(capacity: Int, counter: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.capacity = max(capacity, 1)
        // Created at zero and raised: libdispatch traps when a semaphore is freed below its initial value, and a
        // write ends holding the buffer it was filling.
        self.available = DispatchSemaphore(value: 0)
        for _ in 0..<max(capacity, 1) { available.signal() }
        self.counter = counter
    }

    /// How many buffers the pool has allocated so far (never more than ``capacity``).
    var allocations: Int { state.withLock { $0.allocations } }

    /// An empty buffer, once one is free.
    func take() -> S3PartBuffer {
        available.wait()
        if let buffer = state.withLock({ $0.free.popLast() }) { return buffer }
        state.withLock { $0.allocations += 1 }
        counter(1)
        return S3PartBuffer()
    }

    /// Takes back a buffer (its part sent or abandoned), emptied but with its memory kept for the next part.
    func giveBack(_ buffer: S3PartBuffer) {
        buffer.bytes.removeAll(keepingCapacity: true)
        state.withLock { $0.free.append(buffer) }
        available.signal()
    }
}
