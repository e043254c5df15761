import StrataCore
import StrataSystem

/// A sink that hands every file on to `inner`, and runs `interruption` once, before it hands on the first file a
/// tier or the catalog copies after the capture's instant (a suite, a keyring, the records' export or the catalog's
/// log: what a store on a database server copies from its snapshot): the writes another machine makes while a
/// capture copies.
final class InterruptedCaptureSink: CaptureSink {
    private let inner: any CaptureSink
    private var interruption: (() throws -> Void)?

    init(_ inner: any CaptureSink, interruption: @escaping () throws -> Void) {
        self.inner = inner
        self.interruption = interruption
    }

    func add(_ file: CapturedFile, contentsOf descriptor: FileDescriptor) throws {
        try interruptIfCopying(file)
        try inner.add(file, contentsOf: descriptor)
    }

    func add(_ file: CapturedFile, contents: [UInt8]) throws {
        try interruptIfCopying(file)
        try inner.add(file, contents: contents)
    }

    private func interruptIfCopying(_ file: CapturedFile) throws {
        guard [.defaults, .secrets, .records].contains(file.tier) || file.path == "catalog/log",
            let interruption
        else { return }
        self.interruption = nil
        try interruption()
    }
}
