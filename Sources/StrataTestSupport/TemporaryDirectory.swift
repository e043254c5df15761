import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh folder for one test, removed by ``remove()`` (or at deinit).
public final class TemporaryDirectory: Sendable {
    /// The folder's absolute path.
    public let path: String

    /// Creates an empty folder under the system's temporary directory, or in `/dev/shm` when `inMemory` is `true`
    /// and there is one (a tree of 100,000 nested folders is made and removed there in seconds, on a disk in
    /// minutes).
    public init(prefix: String = "strata-test", inMemory: Bool = false) throws {
        var base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        if inMemory, access("/dev/shm", W_OK) == 0 { base = "/dev/shm" }
        var template = Array((base + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: base])
        }
        path = String(cString: made)
    }

    /// The path of `name` inside the folder.
    public func appending(_ name: String) -> String { path + "/" + name }

    /// Deletes the folder and everything in it (also a tree nested past `PATH_MAX`, which Foundation leaves).
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
        if FileManager.default.fileExists(atPath: path) {
            let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            DeepFolders.remove(String(path.split(separator: "/").last ?? ""), in: parent.isEmpty ? "/" : parent)
        }
    }

    deinit { remove() }
}

/// Runs `body` with a fresh temporary folder and removes it afterwards.
public func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try await body(directory)
}
