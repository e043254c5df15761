import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A hold on the test run's S3 gateway (`Scripts/s3.sh`): the tests that take it down (killing radosgw) hold it for
/// an outage, alone; the tests that need it up throughout (a client with few retries, a count of attempts) hold it
/// steady, several at once. Every test module runs in one process and their suites run side by side, so without it
/// one suite's outage fails another's requests.
///
/// Within a process the holds are ordered here (an outage waiting keeps new steady holds waiting, so that it is not
/// put off forever); across processes (two test runs on one gateway) by `flock` on `gateway.hold` in the cluster's
/// folder (`STRATA_S3_DIR`), shared for steady and exclusive for an outage.
///
/// Held for a suite's every test as a stored property (`let gateway = S3GatewayHold(.steady)`: each test gets an
/// instance of the suite, released when the test ends), or around a body with ``holding(_:_:)``.
public final class S3GatewayHold: Sendable {
    /// What the holder does with the gateway.
    public enum Kind: Sendable {
        /// Needs it up throughout.
        case steady
        /// Takes it down (and brings it back).
        case outage
    }

    private struct State {
        var steady = 0
        var outage = false
        var outagesWaiting = 0
    }

    private static let state = Mutex(State())
    let kind: Kind
    /// The open `gateway.hold` this hold has locked, or -1 without a cluster folder.
    let descriptor: Int32

    /// Waits until the gateway can be held as `kind`, and holds it until this hold is released.
    public init(_ kind: Kind) {
        self.kind = kind
        switch kind {
        case .steady:
            Self.wait(until: { state in
                guard !state.outage && state.outagesWaiting == 0 else { return false }
                state.steady += 1
                return true
            })
        case .outage:
            Self.state.withLock { $0.outagesWaiting += 1 }
            Self.wait(until: { state in
                guard !state.outage && state.steady == 0 else { return false }
                state.outagesWaiting -= 1
                state.outage = true
                return true
            })
        }
        descriptor = Self.lockAcrossProcesses(kind)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        switch kind {
        case .steady: Self.state.withLock { $0.steady -= 1 }
        case .outage: Self.state.withLock { $0.outage = false }
        }
    }

    /// Runs `body` holding the gateway as `kind`.
    public static func holding<T>(_ kind: Kind, _ body: () throws -> T) rethrows -> T {
        let hold = S3GatewayHold(kind)
        return try withExtendedLifetime(hold) { try body() }
    }

    /// Opens `gateway.hold` in the cluster's folder and locks it as `kind`; -1 without a folder (or a file).
    private static func lockAcrossProcesses(_ kind: Kind) -> Int32 {
        guard let folder = ProcessInfo.processInfo.environment["STRATA_S3_DIR"], !folder.isEmpty else { return -1 }
        let descriptor = open(folder + "/gateway.hold", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return -1 }
        while flock(descriptor, kind == .steady ? LOCK_SH : LOCK_EX) != 0 && errno == EINTR {}
        return descriptor
    }

    /// Polls until `take` succeeds (holds are taken for seconds; a short sleep costs nothing next to them).
    private static func wait(until take: (inout State) -> Bool) {
        while !state.withLock({ take(&$0) }) { usleep(2_000) }
    }
}
