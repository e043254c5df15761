public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line of a history written by processes as they run (JSON, one object a line): a call before the operation
/// starts, its return after it ends. A process killed in between leaves the call alone, which the history reads as
/// an operation without a response. Lines of several processes, merged, make one history.
public struct LinearizabilityLogLine: Sendable, Codable, Hashable {
    /// An operation's identifier, unique in the merged history; its call and return lines share it.
    public var id: String
    /// The process that made the call.
    public var process: Int
    /// The key.
    public var key: String
    /// The call, on the call line.
    public var call: LinearizabilityCall?
    /// The response, on the return line.
    public var response: LinearizabilityResponse?
    /// When, in monotonic nanoseconds (``now()``).
    public var time: UInt64

    /// A call line.
    public static func call(_ call: LinearizabilityCall, id: String, process: Int, key: String, at time: UInt64)
        -> Self
    {
        Self(id: id, process: process, key: key, call: call, response: nil, time: time)
    }

    /// A return line.
    public static func response(
        _ response: LinearizabilityResponse, id: String, process: Int, key: String, at time: UInt64
    ) -> Self {
        Self(id: id, process: process, key: key, call: nil, response: response, time: time)
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process of the machine (on Linux), so the times of
    /// several processes' lines compare.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The line as JSON, with its newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// The history the lines of `text` (any number of processes' logs, concatenated) describe: each call with its
    /// return, or without a response when none was written. A torn last line (a process killed while writing it) is
    /// skipped.
    public static func history(from text: String) throws -> [LinearizabilityOperation] {
        let decoder = JSONDecoder()
        var calls: [String: Self] = [:]
        var order: [String] = []
        var returns: [String: Self] = [:]
        for line in text.split(separator: "\n") {
            guard let parsed = try? decoder.decode(Self.self, from: Data(line.utf8)) else { continue }
            if parsed.call != nil {
                if calls.updateValue(parsed, forKey: parsed.id) == nil { order.append(parsed.id) }
            } else {
                returns[parsed.id] = parsed
            }
        }
        return order.compactMap { id in
            guard let call = calls[id], let made = call.call else { return nil }
            let returned = returns[id]
            return LinearizabilityOperation(
                process: call.process, key: call.key, call: made, response: returned?.response, invoked: call.time,
                responded: returned?.time)
        }
    }
}
