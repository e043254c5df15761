internal import CStrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Stopping a long command cleanly on SIGINT, SIGTERM or SIGHUP: the first signal is recorded for the command to
// poll; a second ends the process at once (after writing the terminal's restoring bytes).
extension Sys {
    /// Installs the handlers of SIGINT, SIGTERM and SIGHUP (a signal ignored on entry stays ignored) until
    /// ``releaseInterrupts()``; ``caughtInterrupt`` then reports the first one that arrives.
    package static func trapInterrupts() throws(Errno) {
        _ = try retrying(.terminal, nil) { strata_interrupt_trap() }
    }

    /// The first signal caught since ``trapInterrupts()``, or `nil`.
    package static var caughtInterrupt: Int32? {
        let signal = strata_interrupt_caught()
        return signal == 0 ? nil : signal
    }

    /// Puts back the handlers ``trapInterrupts()`` replaced.
    package static func releaseInterrupts() {
        _ = strata_interrupt_release()
    }

    /// Sets what a second signal writes to `fd` before it ends the process (at most 64 bytes; empty: nothing),
    /// so that a terminal is put back even then.
    package static func setInterruptRestore(_ bytes: [UInt8], fd: FileDescriptor = .standardError) {
        _ = bytes.withUnsafeBytes { strata_interrupt_set_restore(fd.rawValue, $0.baseAddress, $0.count) }
    }

    /// Ends the process by `signal`, with its default action: a shell then sees 128 + the signal's number, and
    /// a script running the command stops as it would for any program stopped by Ctrl-C.
    package static func raiseDefault(_ signal: Int32) -> Never {
        _ = strata_interrupt_raise(signal)
        // Only reached if the signal's default action does not end a process.
        exit(128 + signal)
    }

    /// The width of the terminal `fd` in columns, or `nil` when it is not a terminal or does not say.
    package static func terminalColumns(_ fd: FileDescriptor) -> Int? {
        guard
            let columns = try? retrying(
                .terminal, nil, consultingFaults: false, { strata_terminal_columns(fd.rawValue) }),
            columns > 0
        else { return nil }
        return Int(columns)
    }
}
