public import Foundation
public import StrataCore
public import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A capture kept in a plain folder, for tests: each file's content as `content/<n>` and the descriptions in
/// `files.json`, in the order they were added. It is both the ``CaptureSink`` a capture writes and the
/// ``CaptureSource`` a restore reads; a backup repository plays both roles in production.
///
/// ```swift
/// let capture = try FolderCapture(folder: directory.appending("capture"))
/// try storage.capture(into: capture)
/// try Storage.restore(from: try FolderCapture(folder: directory.appending("capture")), to: newRoot)
/// ```
public final class FolderCapture: CaptureSink, CaptureSource, @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched under `lock`.
    /// The folder.
    public let folder: String
    private let lock = NSLock()
    private var entries: [Entry] = []

    struct Entry: Codable {
        var path: String
        var tier: Tier?
        var mode: UInt32
        var size: Int64
        var modificationTime: CapturedFile.Timespec
        var extendedAttributes: [String: [UInt8]]
        var content: String

        var file: CapturedFile {
            CapturedFile(
                path: path, tier: tier, mode: mode, size: size, modificationTime: modificationTime,
                extendedAttributes: extendedAttributes)
        }
    }

    /// Opens the capture in `folder`, creating the folder when absent and reading `files.json` when present.
    public init(folder: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder + "/content", withIntermediateDirectories: true)
        if let data = FileManager.default.contents(atPath: folder + "/files.json") {
            entries = try JSONDecoder().decode([Entry].self, from: data)
        }
    }

    public var files: [CapturedFile] { lock.withLock { entries.map(\.file) } }

    /// Replaces the descriptions (for tests that make hostile captures), keeping each one's content by index.
    public func rewrite(_ transform: (inout [CapturedFile]) -> Void) throws {
        try lock.withLock {
            var described = entries.map(\.file)
            transform(&described)
            entries = described.enumerated().map { index, file in
                Entry(
                    path: file.path, tier: file.tier, mode: file.mode, size: file.size,
                    modificationTime: file.modificationTime, extendedAttributes: file.extendedAttributes,
                    content: entries[min(index, entries.count - 1)].content)
            }
            try save()
        }
    }

    public func add(_ file: CapturedFile, contentsOf descriptor: FileDescriptor) throws {
        var bytes = [UInt8](repeating: 0, count: Int(file.size))
        var offset = 0
        while offset < bytes.count {
            let count = try bytes.withUnsafeMutableBytes { buffer throws -> Int in
                do {
                    return try Sys.pread(
                        descriptor, UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]), at: Int64(offset))
                } catch let error as Errno {
                    throw error.storageError("cannot read a captured file", tier: file.tier, path: file.path)
                }
            }
            guard count > 0 else {
                throw StorageError(
                    .corrupt, "the file ended after \(offset) of \(file.size) bytes", tier: file.tier, path: file.path)
            }
            offset += count
        }
        try add(file, contents: bytes)
    }

    public func add(_ file: CapturedFile, contents: [UInt8]) throws {
        guard Int64(contents.count) == file.size else {
            throw StorageError(.invalidArgument, "the content's size is not the file's", path: file.path)
        }
        try lock.withLock {
            let name = "content/\(entries.count)"
            try Data(contents).write(to: URL(fileURLWithPath: folder + "/" + name))
            entries.append(
                Entry(
                    path: file.path, tier: file.tier, mode: file.mode, size: file.size,
                    modificationTime: file.modificationTime, extendedAttributes: file.extendedAttributes, content: name)
            )
            try save()
        }
    }

    public func write(_ file: CapturedFile, to descriptor: FileDescriptor) throws {
        guard let entry = lock.withLock({ entries.first { $0.file == file } }),
            let data = FileManager.default.contents(atPath: folder + "/" + entry.content)
        else {
            throw StorageError(.notFound, "the capture holds no content for this file", path: file.path)
        }
        do {
            try Sys.writeAll(descriptor, data, path: file.path)
        } catch {
            throw error.storageError("cannot write a restored file", tier: file.tier, path: file.path)
        }
    }

    /// The content stored for `path`.
    public func contents(of path: String) -> Data? {
        guard let entry = lock.withLock({ entries.first { $0.path == path } }) else { return nil }
        return FileManager.default.contents(atPath: folder + "/" + entry.content)
    }

    /// The content of the file added `index`th (from 0): a path added twice, as a file copied again at a capture's
    /// instant is, has two entries, which ``contents(of:)`` cannot tell apart.
    public func contents(ofEntry index: Int) -> Data? {
        guard let entry = lock.withLock({ entries.indices.contains(index) ? entries[index] : nil }) else { return nil }
        return FileManager.default.contents(atPath: folder + "/" + entry.content)
    }

    private func save() throws {
        try JSONEncoder().encode(entries).write(to: URL(fileURLWithPath: folder + "/files.json"))
    }
}
