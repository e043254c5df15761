import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The repository's server scripts (`Scripts/postgres.sh`, `Scripts/s3.sh`), run by the tests that put a server out of
/// service: spawned and reaped directly, with their standard output sent to a file, because the daemons they start
/// outlive them and would hold a pipe open (Foundation's `Process` never saw such a script end).
enum FaultScripts {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts").path

    /// Runs `Scripts/<script> <arguments>` with `environment` added to the test's own, and waits for it (at most
    /// `timeout` seconds).
    /// - Throws: `CocoaError` when it cannot start, runs over `timeout` (it is killed) or exits with a failure.
    static func run(
        _ script: String, _ arguments: [String], environment: [String: String] = [:], output: String = "/dev/null",
        timeout: Double = 240
    ) throws {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            var argv = (["/bin/bash", folder + "/" + script] + arguments).map { strdup($0) } + [nil]
            var envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var pid: pid_t = 0
            let command = "\(script) \(arguments.joined(separator: " "))"
            guard posix_spawn(&pid, "/bin/bash", &actions, nil, &argv, &envp) == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot start \(command)"])
            }
            let deadline = Date().addingTimeInterval(timeout)
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) == 0 {
                if Date() > deadline {
                    kill(pid, SIGKILL)
                    _ = waitpid(pid, &status, 0)
                    throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(command) hung"])
                }
                usleep(10_000)
            }
            guard status == 0 else {
                throw CocoaError(
                    .executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(command) failed (wait status \(status))"])
            }
        #else
            throw CocoaError(.featureUnsupported)
        #endif
    }
}
