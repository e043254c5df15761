import Foundation
import StrataCore
import StrataS3
import StrataSystem
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The gateway the live tests use: the one `Scripts/s3.sh start` exported (`STRATA_S3_URL`, `AWS_*`), a unique
/// prefix per test, and the script's controls for killing and restarting radosgw.
struct S3TestGateway {
    static let environment = ProcessInfo.processInfo.environment
    static var isConfigured: Bool { !(environment["STRATA_S3_URL"] ?? "").isEmpty }
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/s3.sh").path

    /// A configuration under a fresh prefix of the test bucket.
    static func configuration(_ adjust: (inout S3Configuration) -> Void = { _ in }) throws -> S3Configuration {
        let base = try S3Configuration(url: environment["STRATA_S3_URL"] ?? "")
        var configuration = try S3Configuration(
            bucket: base.bucket, prefix: base.prefix + "test-\(UUID().uuidString.lowercased())/",
            endpoint: base.endpoint, region: base.region, credentials: base.credentials)
        configuration.baseRetryDelay = 0.05
        // Tests running beside this one kill and resume the shared gateway: ride through that (about a minute of
        // retries). A test about failing sets its own `maxAttempts` in `adjust`.
        configuration.maxAttempts = 30
        configuration.maxRetryDelay = 2
        adjust(&configuration)
        return configuration
    }

    static func client(_ adjust: (inout S3Configuration) -> Void = { _ in }) throws -> S3Client {
        try S3Client(configuration(adjust))
    }

    /// A client that uploads parts of 5 MiB one at a time, with short retry delays: for killing the gateway
    /// between parts.
    static func partByPartClient(maxAttempts: Int) throws -> S3Client {
        try client {
            $0.partSize = 5 << 20
            $0.concurrency = 1
            $0.maxAttempts = maxAttempts
            $0.maxRetryDelay = 2
            $0.connectTimeout = 2
        }
    }

    /// Runs `Scripts/s3.sh <command> <arguments>` and waits for it (at most four minutes). Spawned and reaped directly:
    /// Foundation's `Process` never saw the exit of a script whose daemon (radosgw) outlived it.
    static func run(_ command: String, _ arguments: String...) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        var argv = (["/bin/bash", script, command] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, "/bin/bash", &actions, nil, &argv, environ) == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot start s3.sh"])
        }
        let deadline = Date().addingTimeInterval(240)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "s3.sh \(command) hung"])
            }
            usleep(20_000)
        }
        guard status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "s3.sh \(command) failed"])
        }
    }

    /// A file of `count` pseudo-random bytes (a different pattern per seed), opened for reading.
    static func file(_ directory: TemporaryDirectory, _ name: String, count: Int, seed: UInt8 = 1) throws -> (
        fd: FileDescriptor, bytes: [UInt8]
    ) {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let path = directory.appending(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
        return (FileDescriptor(rawValue: fd), bytes)
    }

    /// An empty file opened for writing.
    static func output(_ directory: TemporaryDirectory, _ name: String) throws -> FileDescriptor {
        let fd = open(directory.appending(name), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        return FileDescriptor(rawValue: fd)
    }

    /// Everything in a file.
    static func contents(_ directory: TemporaryDirectory, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: directory.appending(name))))
    }
}
