import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport

/// A capture sink that runs a change to the store once, right after the file at a given path is added: a write,
/// move or delete made while a capture copies its tiers ahead of its instant, at a chosen point and without timing.
/// (The capture holds that file's lock meanwhile: the change must not touch it.)
final class HookedCaptureSink: CaptureSink {
    let inner: FolderCapture
    private let path: String
    private var hook: (() throws -> Void)?

    init(_ inner: FolderCapture, after path: String, _ hook: @escaping () throws -> Void) {
        self.inner = inner
        self.path = path
        self.hook = hook
    }

    func add(_ file: CapturedFile, contentsOf descriptor: FileDescriptor) throws {
        try inner.add(file, contentsOf: descriptor)
        try runHook(after: file)
    }

    func add(_ file: CapturedFile, contents: [UInt8]) throws {
        try inner.add(file, contents: contents)
        try runHook(after: file)
    }

    private func runHook(after file: CapturedFile) throws {
        guard file.path == path, let hook else { return }
        self.hook = nil
        try hook()
    }
}
