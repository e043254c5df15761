import Foundation

/// The shared S3 gateway of `Scripts/s3.sh` (in `STRATA_S3_DIR`), killed and started again. The S3 suites kill it
/// too, and every client of it rides through a short outage by its retries.
enum FaultGateway {
    static var directory: String { ProcessInfo.processInfo.environment["STRATA_S3_DIR"] ?? "" }

    /// Runs `Scripts/s3.sh VERB` on the shared gateway's cluster.
    static func run(_ verb: String) throws {
        guard !directory.isEmpty else {
            throw CocoaError(
                .featureUnsupported,
                userInfo: [NSLocalizedDescriptionKey: "STRATA_S3_DIR is not set (Scripts/test.sh exports it)"])
        }
        try FaultScripts.run("s3.sh", [verb])
    }

    /// Whether radosgw runs: a gateway killed by the script has no pid file.
    static var isRunning: Bool { FileManager.default.fileExists(atPath: directory + "/run/client.rgw.pid") }

    /// Starts it again if a test left it killed.
    static func restore() {
        if !directory.isEmpty && !isRunning { try? run("resume-gateway") }
    }
}
