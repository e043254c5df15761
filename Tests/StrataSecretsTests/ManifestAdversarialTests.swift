import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A keyring whose item manifest another program replaced with something that is not one: the check reports it
/// naming the manifest, an item it held is never read as absent, the item files are still checked, and a capture
/// either copies what is there or fails typed.
@Suite("SecretStore: a manifest that is not a manifest", .serialized)
struct ManifestAdversarialTests {
    enum Shape: String, CaseIterable, Sendable {
        case folder, linkToManifest, linkToNothing, empty, truncated, garbage, huge, fifo
    }

    /// Replaces the manifest of `fixture`'s keyring with `shape`.
    static func replace(_ path: String, with shape: Shape, outside: String) throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: path)
        switch shape {
        case .folder: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .linkToManifest:
            try original.write(to: URL(fileURLWithPath: outside))
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
        case .linkToNothing: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
        case .empty: try Data().write(to: URL(fileURLWithPath: path))
        case .truncated: try original.prefix(original.count / 2).write(to: URL(fileURLWithPath: path))
        case .garbage: try Data(repeating: 0xA5, count: original.count).write(to: URL(fileURLWithPath: path))
        case .fifo: #expect(mkfifo(path, 0o600) == 0)
        case .huge:
            // Sparse: 64 MiB and one byte, past the limit of the check's read.
            let fd = open(path, O_CREAT | O_WRONLY, 0o600)
            #expect(fd >= 0 && ftruncate(fd, (64 << 20) + 1) == 0)
            close(fd)
        }
    }

    @Test(arguments: Shape.allCases)
    func theCheckReportsTheManifestAndAnInlineItemIsNeverAbsent(_ shape: Shape) throws {
        let fixture = try SecretsFixture()
        let store = try fixture.store()
        try store.set("small", service: "s", account: "a")
        try store.set(String(repeating: "x", count: 2048), service: "s", account: "large")
        #expect(store.structuralProblems().isEmpty)
        let manifest = fixture.keyringFolder() + "/" + ItemManifest.fileName
        try Self.replace(manifest, with: shape, outside: fixture.directory.appending("outside"))
        let watchdog = FIFOWatchdog(path: manifest)
        defer { #expect(watchdog.finish() == 0, "\(shape): a reader waited on the FIFO") }

        let problems = store.structuralProblems()
        #expect(problems.count == 1, "\(shape): \(problems)")
        #expect(problems.contains { $0.contains(manifest) }, "\(shape): \(problems)")
        // The item inline in the manifest: an error, never "no such item".
        let read = Result { try store.get(service: "s", account: "a") }
        switch read {
        case .success(let secret): Issue.record("\(shape): the inline item read as \(String(describing: secret))")
        case .failure(let error): #expect(error is StorageError, "\(shape): \(error)")
        }
        // A new process opening the keyring meets the same.
        let reopened = Result { try fixture.store().get(service: "s", account: "a") }
        if case .success(let secret) = reopened {
            Issue.record("\(shape): reopened, the inline item read as \(String(describing: secret))")
        }
        // A capture copies what is there or fails typed: it never leaves the manifest out without a word.
        let capture = try FolderCapture(folder: fixture.directory.appending("capture"))
        do {
            _ = try store.capture(into: capture, root: fixture.paths.root)
            let captured = capture.files.map(\.path)
            #expect(
                captured.contains { $0.hasSuffix("/" + ItemManifest.fileName) } || shape == .linkToNothing,
                "\(shape): \(captured)")
        } catch {
            #expect(error is StorageError, "\(shape): \(error)")
        }
    }

    /// An item file replaced by a FIFO: the item and its attributes read as a typed error, the check reports the
    /// file, a capture fails naming it; none waits for a writer (a read of the attributes did before).
    @Test func anItemFileThatIsAFIFOIsRefusedNotWaitedOn() throws {
        let fixture = try SecretsFixture()
        let store = try fixture.fileStore()
        try store.set("value", service: "s", account: "a")
        let files = try fixture.itemFiles()
        #expect(files.count == 1)
        let item = try #require(files.first)
        try FileManager.default.removeItem(atPath: item)
        #expect(mkfifo(item, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: item)
        defer { #expect(watchdog.finish() == 0, "a reader waited on the FIFO") }
        let read = #expect(throws: StorageError.self) { try fixture.fileStore().get(service: "s", account: "a") }
        #expect(read?.path == item, "\(String(describing: read))")
        // The attributes alone: read from the file's first bytes, by another open.
        let attributes = #expect(throws: StorageError.self) {
            try fixture.fileStore().attributes(service: "s", account: "a")
        }
        #expect(attributes?.path == item, "\(String(describing: attributes))")
        #expect(store.structuralProblems().contains { $0.contains(item) })
        let capture = try FolderCapture(folder: fixture.directory.appending("capture"))
        let captured = #expect(throws: StorageError.self) {
            try store.capture(into: capture, root: fixture.paths.root)
        }
        #expect(captured?.path?.hasSuffix((item as NSString).lastPathComponent) == true)
    }
}
