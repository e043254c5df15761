internal import CStrataSystem

// A terminal with echo off for reading a passphrase, put back even when a signal ends the process.
extension Sys {
    /// Turns echo off on the terminal `fd` until ``restoreEcho()``; until then SIGINT, SIGQUIT, SIGTERM and SIGHUP
    /// first put the terminal back, then end the process as they would have.
    package static func echoOff(_ fd: FileDescriptor) throws(Errno) {
        _ = try retrying(.terminal, nil) { strata_terminal_echo_off(fd.rawValue) }
    }

    /// Puts back the terminal settings and signal handlers ``echoOff(_:)`` replaced; does nothing if echo is on.
    package static func restoreEcho() {
        _ = try? retrying(.terminal, nil, consultingFaults: false) { strata_terminal_restore() }
    }
}
