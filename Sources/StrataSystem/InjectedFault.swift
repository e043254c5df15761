import Synchronization

/// A fault that ``FaultInjector`` makes a system call suffer.
package enum InjectedFault: Sendable, Hashable {
    /// The call fails with this `errno` (for example `ENOSPC` or `EIO`).
    case error(Int32)
    /// The call is interrupted once (`EINTR`); the seam must retry it.
    case interrupt
    /// A `write` writes at most this many bytes.
    case shortWrite(Int)
    /// The process sends itself `SIGKILL` before the call, after naming it on standard error: a crash at exactly
    /// that step, for tests that kill a real process (see ``FaultInjector/killVariable``). Never returned to the
    /// seam.
    case kill
}
