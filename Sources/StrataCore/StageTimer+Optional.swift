extension StageTimer? {
    /// Runs `body`, adding the time it took to `stage` when there is a timer: code that is timed only when a
    /// benchmark asks calls this on its optional timer.
    package func time<T, E: Error>(_ stage: String, _ body: () throws(E) -> T) throws(E) -> T {
        guard let timer = self else { return try body() }
        return try timer.time(stage, body)
    }
}
