/// The time one stage of an operation took: on the thread that ran the operation, or added up over the worker
/// threads that ran beside it (such a sum may exceed the operation's own time).
public struct StageTime: Sendable, Hashable, CustomStringConvertible {
    /// What the stage does, for example `read packs` or `flush`.
    public var name: String
    /// The seconds spent in it.
    public var seconds: Double
    /// Whether ``seconds`` is added up over worker threads rather than spent on the operation's own thread.
    public var isOnWorkers: Bool

    /// Creates a stage's time.
    public init(name: String, seconds: Double, isOnWorkers: Bool = false) {
        self.name = name
        self.seconds = seconds
        self.isOnWorkers = isOnWorkers
    }

    /// The name and the seconds, in milliseconds, marked `(workers)` when added up over worker threads.
    public var description: String {
        "\(name): \(Int((seconds * 1000).rounded())) ms" + (isOnWorkers ? " (workers)" : "")
    }
}
