import Foundation
public import StrataFiles
import StrataLocalFiles
import StrataS3

/// The file engines the tests run their shared bodies against.
///
/// Adding an engine is one place: a case here, its condition in ``available``, and its store in
/// ``FileStoreLocation/open(_:configuration:)``.
public enum FileEngineKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// ``StrataFiles/PosixFileEngine``, under a temporary folder.
    case posix
    /// `S3FileEngine` on the test gateway (`STRATA_S3_URL`, from `Scripts/s3.sh start`), under a prefix of its own.
    case s3

    public var description: String { rawValue }

    /// The engines available in this run: POSIX always, S3 when the test gateway is up.
    public static var available: [FileEngineKind] {
        ProcessInfo.processInfo.environment["STRATA_S3_URL"].map { $0.isEmpty ? [.posix] : [.posix, .s3] } ?? [.posix]
    }
}

/// A fresh, empty file store for one test, on any engine: a temporary folder of its own, and a key prefix of its own
/// on a shared server (every file under it is deleted when the location is released, so tests that share a bucket
/// never see each other's files).
public final class FileStoreLocation: Sendable {
    public let kind: FileEngineKind
    /// A temporary folder for the test's local files (archives, exports) and the POSIX store's root.
    public let directory: TemporaryDirectory
    /// What a child process is given to open the same store (``open(_:configuration:)``): the POSIX store's root,
    /// or `<engine>:<unique prefix>`.
    public let location: String

    public init(_ kind: FileEngineKind) throws {
        self.kind = kind
        directory = try TemporaryDirectory(prefix: "strata-files")
        switch kind {
        case .posix: location = directory.appending("root")
        case .s3: location = "s3:" + "t-" + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "/"
        }
    }

    deinit {
        // A server's files outlive the process: delete everything under the location's prefix.
        guard kind != .posix, let store = try? open() else { return }
        for key in (try? store.list()) ?? [] { _ = try? store.delete(key) }
    }

    /// Opens the store (again).
    public func open(configuration: FilesConfiguration = FilesConfiguration()) throws -> FileStore {
        try Self.open(location, configuration: configuration)
    }

    /// Opens the store at a location made by a ``FileStoreLocation`` (in this process or a parent).
    public static func open(_ location: String, configuration: FilesConfiguration = FilesConfiguration()) throws
        -> FileStore
    {
        guard location.hasPrefix("s3:") else { return try FileStore(root: location, configuration: configuration) }
        var s3 = try S3Configuration(url: ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "")
        s3.prefix += location.dropFirst(3)
        // The S3 tests kill and resume the shared test gateway while these run: ride through that.
        s3.maxAttempts = 30
        s3.maxRetryDelay = 2
        return FileStore(engine: try S3FileEngine(configuration: s3), configuration: configuration)
    }
}
