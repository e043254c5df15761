/// When and how long to wait before sending a failed request again: exponential backoff with full jitter (each
/// delay drawn uniformly between zero and a ceiling that doubles per attempt), so that many clients retrying at
/// once spread out instead of arriving together.
struct S3RetryPolicy: Sendable {
    var maxAttempts: Int
    var baseDelay: Double
    var maxDelay: Double

    /// The delay before attempt `attempt + 1`, after `attempt` failed (1-based), in seconds.
    func delay(after attempt: Int, using generator: inout some RandomNumberGenerator) -> Double {
        let ceiling = min(maxDelay, baseDelay * Double(1 << min(max(attempt - 1, 0), 30)))
        return ceiling > 0 ? Double.random(in: 0...ceiling, using: &generator) : 0
    }
}
