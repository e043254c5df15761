#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Sending a signal: what an injected kill (`InjectedFault.kill`) does to its own process (SIGKILL cannot be raised through a handler
// reset, as `raiseDefault` does for the catchable ones).
extension Sys {
    /// `kill(2)`: sends `signal` to the process `pid`. Never faulted: an injected kill must not be stopped by a plan
    /// injected for the code it interrupts.
    package static func sendSignal(_ signal: Int32, to pid: Int32) throws(Errno) {
        _ = try retrying(.terminal, nil, consultingFaults: false) { system_kill(pid, signal) }
    }

    /// This process's id.
    package static var processID: Int32 { getpid() }
}

private func system_kill(_ pid: Int32, _ signal: Int32) -> Int32 { kill(pid, signal) }
