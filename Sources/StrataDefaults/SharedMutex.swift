import Synchronization

/// A `Mutex` held by reference, so that several owners lock the very same value.
///
/// Every ``DefaultsStore`` opened on one suite file in a process holds the same two of these (see ``SuiteTable``).
final class SharedMutex<Value>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, holding the lock.
    func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
}
