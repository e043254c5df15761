import Foundation

/// One operation of a concurrent history: who asked what of which key, when (monotonic nanoseconds, comparable
/// across the processes of the history), and what came back.
///
/// An operation without a response (its process was killed, or it is still running) may or may not have taken
/// effect, at any moment after its invocation; so may one answered with ``LinearizabilityResponse/failed(_:)``.
public struct LinearizabilityOperation: Sendable, Hashable, Codable {
    /// The process (or thread) that made the call; only for explanations, since the timestamps give the order.
    public var process: Int
    /// The key the call was about.
    public var key: String
    /// What was asked.
    public var call: LinearizabilityCall
    /// What came back; `nil` when nothing did.
    public var response: LinearizabilityResponse?
    /// When the call was made, in monotonic nanoseconds.
    public var invoked: UInt64
    /// When the response came, in monotonic nanoseconds; `nil` when none did.
    public var responded: UInt64?

    public init(
        process: Int, key: String, call: LinearizabilityCall, response: LinearizabilityResponse?, invoked: UInt64,
        responded: UInt64?
    ) {
        self.process = process
        self.key = key
        self.call = call
        self.response = response
        self.invoked = invoked
        self.responded = responded
    }

    /// Whether the response pins down what the operation did (it answered, without an error).
    var isDetermined: Bool {
        guard let response, responded != nil else { return false }
        if case .failed = response { return false }
        return true
    }

    /// One line for explanations, times in milliseconds after `origin`: `p2 put(v3) → ok [1.204, 1.950]`.
    func text(after origin: UInt64) -> String {
        func milliseconds(_ time: UInt64) -> String {
            String(format: "%.3f", Double(time &- origin) / 1_000_000)
        }
        let answer = isDetermined ? response!.text : "? (\(response.map(\.text) ?? "no response"))"
        let end = responded.map(milliseconds) ?? "…"
        return "p\(process) \(call.text) → \(answer) [\(milliseconds(invoked)), \(end)] ms"
    }
}
