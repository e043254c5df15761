import Foundation
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What the fleet linearizability test does to the fleet while its workers run.
enum FleetFault: String, Sendable, CustomStringConvertible {
    /// Nothing.
    case none
    /// A random worker SIGKILLed about every half second, and started again.
    case killing
    /// A worker SIGKILLed a few milliseconds after it says it starts a move (or a put of a file-sized value, which
    /// moves the key when it is in records), and started again.
    case killingMidMove
    /// The PostgreSQL server (the tests' own) stopped with SIGSTOP for 0.5 to 1.5 s, about every 1.5 s: every
    /// connection stays open and nothing answers.
    case postgresFrozen
    /// The PostgreSQL server (the tests' own) crashed (an immediate stop) and started again, once or twice: every
    /// session dies, and the advisory locks go with them.
    case postgresRestarted
    /// The shared S3 gateway (radosgw) SIGKILLed and started again, once or twice.
    case gatewayCrashed
    /// The sessions holding keys' locks on the PostgreSQL server (the tests' own) ended by the server
    /// (`pg_terminate_backend`) a few milliseconds after a worker says it starts a move, while the server stays up:
    /// a holder cut off from the server, whose locks other workers take at once.
    case postgresSessionsTerminated

    var description: String { rawValue }

    /// Whether the workers' catalog and records are on the tests' own server (``FaultPostgres``).
    var needsOwnServer: Bool {
        self == .postgresFrozen || self == .postgresRestarted || self == .postgresSessionsTerminated
    }

    /// Puts a server out of service the way this fault says, again and again until `deadline` is near (nothing for
    /// the faults that kill workers). Whatever it leaves behind is for ``restore(_:)`` to undo.
    /// - Returns: When each outage began and ended (monotonic nanoseconds).
    func outages(until deadline: UInt64, server: FaultPostgres?, using generator: inout SeededGenerator) throws
        -> [ClosedRange<UInt64>]
    {
        var windows: [ClosedRange<UInt64>] = []
        func outage(_ body: () throws -> Void) rethrows {
            let start = LinearizabilityLogLine.now()
            try body()
            windows.append(start...LinearizabilityLogLine.now())
        }
        while LinearizabilityLogLine.now() + 1_500_000_000 < deadline {
            switch self {
            case .none, .killing, .killingMidMove, .postgresSessionsTerminated:
                return windows
            case .postgresFrozen:
                usleep(UInt32.random(in: 300_000...800_000, using: &generator))
                let frozen = UInt32.random(in: 500_000...1_500_000, using: &generator)
                try outage {
                    // The script thaws it by itself after 10 s, should this process die meanwhile.
                    try server?.run("freeze", "10")
                    usleep(frozen)
                    try server?.run("thaw")
                }
            case .postgresRestarted, .gatewayCrashed:
                guard windows.count < 2 else { return windows }
                usleep(UInt32.random(in: 700_000...1_500_000, using: &generator))
                let down = UInt32.random(in: 200_000...500_000, using: &generator)
                try outage {
                    if self == .postgresRestarted {
                        try server?.run("crash")
                        usleep(down)
                        try server?.run("resume")
                    } else {
                        try FaultGateway.run("crash-gateway")
                        usleep(down)
                        try FaultGateway.run("resume-gateway")
                    }
                }
            }
        }
        return windows
    }

    /// Puts back in service whatever this fault took out of it, however the test ended.
    func restore(_ server: FaultPostgres?) {
        switch self {
        case .postgresFrozen, .postgresRestarted, .postgresSessionsTerminated: server?.restore()
        case .gatewayCrashed: FaultGateway.restore()
        case .none, .killing, .killingMidMove: break
        }
    }
}
