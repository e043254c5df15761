public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program started by a test: its output is collected line by line, and it can be killed at any moment.
public final class ChildProcess: Sendable {
    /// Why ``waitForLine(timeout:where:)`` or ``run(_:_:environment:input:timeout:)`` gave up.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// What a finished program did.
    public struct Result: Sendable {
        /// The exit status, or the signal number when ``wasSignalled``.
        public var status: Int32
        /// Whether it was ended by a signal.
        public var wasSignalled: Bool
        /// Everything it printed on standard output.
        public var standardOutput: String
        /// Everything it printed on standard error.
        public var standardError: String

        /// Why it failed, in a few lines: a Swift runtime's `Fatal error` line (a crash report puts it first, ahead of
        /// pages of backtrace) with the end of standard error, or that end alone.
        public var failureSummary: String {
            let fatal = standardError.split(separator: "\n").filter { $0.contains("Fatal error") }.prefix(3)
            let end = String(standardError.suffix(fatal.isEmpty ? 2_000 : 500))
            return fatal.isEmpty ? end : fatal.joined(separator: "\n") + "\n…\n" + end
        }
    }

    private struct Output {
        var lines: [String] = []
        var partial = Data()
        var all = Data()
        var errors = Data()
        /// Standard output reached end of file.
        var ended = false
        /// Standard error reached end of file.
        var errorsEnded = false
    }

    private let process: Process
    private let shared = Shared()
    private var changed: Condition { shared.changed }

    private final class Shared: Sendable {
        let output = Mutex(Output())
        let changed = Condition()
    }

    /// Starts `executable` with `arguments`.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil)
        throws
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        self.process = process
        // One thread per pipe reads in order until end of file (readability handlers may overlap and reorder).
        let out = stdout.fileHandleForReading
        let err = stderr.fileHandleForReading
        Thread.detachNewThread { [shared] in
            while true {
                let chunk = Self.nextChunk(out.fileDescriptor)
                shared.output.withLock { state in
                    if chunk.isEmpty {
                        state.ended = true
                    } else {
                        state.all.append(chunk)
                        state.partial.append(chunk)
                        while let newline = state.partial.firstIndex(of: 0x0A) {
                            let line = state.partial[state.partial.startIndex..<newline]
                            state.lines.append(String(decoding: line, as: UTF8.self))
                            state.partial.removeSubrange(state.partial.startIndex...newline)
                        }
                    }
                }
                shared.changed.signal()
                if chunk.isEmpty { return }
            }
        }
        Thread.detachNewThread { [shared] in
            while true {
                let chunk = Self.nextChunk(err.fileDescriptor)
                shared.output.withLock { state in
                    if chunk.isEmpty { state.errorsEnded = true } else { state.errors.append(chunk) }
                }
                shared.changed.signal()
                if chunk.isEmpty { return }
            }
        }
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try? stdin.fileHandleForWriting.close()
    }

    /// The next bytes from a pipe, empty at end of file. A plain `read(2)` retried on `EINTR`: `FileHandle`'s
    /// `availableData` stops the process with a fatal error when a signal interrupts it, and the library's `Sys`
    /// seam would let a test's injected faults reach the harness itself.
    private static func nextChunk(_ fd: Int32) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { return Data(buffer[..<count]) }
            if count == -1 && errno == EINTR { continue }
            return Data()
        }
    }

    /// The process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Whether the program is still running.
    public var isRunning: Bool { process.isRunning }

    /// The complete lines printed so far.
    public var lines: [String] { shared.output.withLock { $0.lines } }

    /// Waits until a printed line satisfies `predicate`.
    /// - Returns: That line.
    /// - Throws: ``Failure`` when the program ends or the timeout passes first.
    @discardableResult
    public func waitForLine(timeout: Double = 30, where predicate: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var checked = 0
        while Date() < deadline {
            let (lines, ended) = shared.output.withLock { ($0.lines, $0.ended) }
            if let found = lines[checked...].first(where: predicate) { return found }
            checked = lines.count
            if ended && !process.isRunning {
                throw Failure(
                    description:
                        "the child ended before printing the expected line; it printed \(lines.suffix(5)), stderr: \(standardErrorText)"
                )
            }
            changed.wait(timeout: 0.05)
        }
        throw Failure(description: "no expected line within \(timeout) s; last lines \(lines.suffix(5))")
    }

    /// Sends a signal (for example `SIGKILL`).
    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Glibc_kill(process.processIdentifier, signal)
    }

    /// Waits for the program to end and returns what it did.
    public func wait() -> Result {
        process.waitUntilExit()
        // Let both readers drain what is left in the pipes: a result taken before the standard-error reader reached
        // end of file would show an empty or partial standard error (seen under load).
        let deadline = Date().addingTimeInterval(30)
        while !shared.output.withLock({ $0.ended && $0.errorsEnded }) && Date() < deadline {
            changed.wait(timeout: 0.02)
        }
        return shared.output.withLock { state in
            Result(
                status: process.terminationStatus,
                wasSignalled: process.terminationReason == .uncaughtSignal,
                standardOutput: String(decoding: state.all, as: UTF8.self),
                standardError: String(decoding: state.errors, as: UTF8.self))
        }
    }

    private var standardErrorText: String { shared.output.withLock { String(decoding: $0.errors, as: UTF8.self) } }

    /// Runs a program to completion.
    /// - Throws: ``Failure`` when it runs longer than `timeout` (it is then killed).
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil,
        timeout: Double = 120
    ) throws -> Result {
        let child = try ChildProcess(executable, arguments, environment: environment, input: input)
        let deadline = Date().addingTimeInterval(timeout)
        while child.process.isRunning {
            if Date() > deadline {
                child.kill()
                let result = child.wait()
                // What it said last tells how far it got.
                let said = result.standardOutput.split(separator: "\n").suffix(5).joined(separator: " | ")
                throw Failure(
                    description: "\(executable.lastPathComponent) \(arguments) ran over \(timeout) s; last said: "
                        + "\(said.isEmpty ? "nothing" : said); standard error: \(result.standardError.suffix(1_000))")
            }
            child.changed.wait(timeout: 0.02)
        }
        return child.wait()
    }
}

/// A minimal condition to sleep on until output arrives.
final class Condition: Sendable {
    private let generation = Mutex(0)

    func signal() { generation.withLock { $0 += 1 } }

    func wait(timeout: Double) {
        let start = generation.withLock { $0 }
        let deadline = Date().addingTimeInterval(timeout)
        while generation.withLock({ $0 }) == start && Date() < deadline { usleep(1000) }
    }
}

private func Glibc_kill(_ pid: Int32, _ signal: Int32) -> Int32 { kill(pid, signal) }

/// Finds the executables this package builds (the CLI, the test child), beside the running test bundle.
public enum TestExecutables {
    /// The URL of a built executable product: in the folder `STRATA_TEST_EXECUTABLES` names when it is set (to run
    /// the tests of a debug build against the release binaries: `STRATA_TEST_EXECUTABLES=.build/release`), else
    /// beside the test bundle.
    /// - Throws: ``ChildProcess/Failure`` when it cannot be found; build the package first.
    public static func url(named name: String) throws -> URL {
        var candidates: [URL] = []
        if let folder = ProcessInfo.processInfo.environment["STRATA_TEST_EXECUTABLES"], !folder.isEmpty {
            let found = URL(fileURLWithPath: folder).appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: found.path) else {
                throw ChildProcess.Failure(
                    description: "STRATA_TEST_EXECUTABLES names \(folder), which holds no executable '\(name)'")
            }
            return found
        }
        let selfPath = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = selfPath.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(folder.appendingPathComponent(name))
            folder = folder.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(name))
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw ChildProcess.Failure(
            description: "cannot find the executable '\(name)' near \(selfPath.path); run 'swift build' first")
    }
}
