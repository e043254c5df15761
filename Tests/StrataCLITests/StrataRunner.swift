import Foundation
import StrataTestSupport

/// Runs the `strata` binary as a subprocess, with `STRATA_ROOT` cleared and a test passphrase set unless the
/// test gives its own environment.
struct StrataRunner {
    var environment: [String: String] = ["STRATA_ROOT": "", "STRATA_PASSPHRASE": "pw"]

    func callAsFunction(_ arguments: [String], input: Data? = nil) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments, environment: environment, input: input)
    }

    /// The same runner with `variable` set to `value` in the child's environment.
    func with(_ variable: String, _ value: String) -> StrataRunner {
        var copy = self
        copy.environment[variable] = value
        return copy
    }
}
