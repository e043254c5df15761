import Foundation
import StrataCore
import StrataSystem

/// Stopping a long verb (an export, a copy in or out) cleanly on Ctrl-C, SIGTERM or a hang-up.
///
/// While ``trapping(_:_:_:)`` runs its body, the first such signal is only recorded: the body polls
/// ``isRequested`` (an export through `ExportOptions.isCancelled`), stops by throwing, and its own clean-up runs
/// as the error unwinds (an atomic write removes its temporary file). Then the progress line is ended, the cursor
/// shown again, a note printed, and the process ends by the same signal with its default action: the shell sees
/// 130 for SIGINT and 143 for SIGTERM, and a script running `strata` stops as it would for any program. A second
/// signal does not wait: it puts the terminal back and ends the process at once (what it leaves, a later run
/// removes: see `AtomicFile.removeStaleTemporaries(in:)`).
enum Interruption {
    /// Whether a signal asked the verb to stop.
    static var isRequested: Bool { Sys.caughtInterrupt != nil }

    /// Runs `body` with the signals trapped; ends the process by the signal if one came (see the type's notes).
    /// - Parameters:
    ///   - command: The command being run (`files export`): the note names it, as every error line does.
    ///   - progress: The progress shown while `body` runs; its line is ended however `body` ends.
    ///   - body: The work; it polls ``isRequested`` and throws to stop.
    static func trapping<T>(
        _ command: String, _ progress: ProgressReporter? = nil, _ body: () throws -> T
    ) throws -> T {
        do {
            try Sys.trapInterrupts()
        } catch {
            throw StorageError.system(error.code, "cannot set up the handling of Ctrl-C")
        }
        let result: Result<T, any Error>
        do {
            result = .success(try body())
        } catch {
            result = .failure(error)
        }
        let signal = Sys.caughtInterrupt
        let completed = (try? result.get()) != nil
        progress?.finish()
        Sys.releaseInterrupts()
        if let signal {
            CommandLineTool.printError(
                "strata \(command): stopped by \(name(of: signal)); "
                    + (completed ? "the work had just finished" : "what was unfinished was removed"))
            Sys.raiseDefault(signal)
        }
        return try result.get()
    }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT (Ctrl-C)"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}
