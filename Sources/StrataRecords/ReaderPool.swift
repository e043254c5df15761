import Foundation
import Synchronization

/// A connection handed to one thread at a time: by the writer lock or by the reader pool.
final class ConnectionBox: @unchecked Sendable {
    // Only touched by the thread that holds the writer lock or has checked it out of the pool.
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
}

/// Read-only connections, checked out one per reading thread; opened lazily up to `size`.
final class ReaderPool: Sendable {
    let path: String
    let size: Int
    let configuration: RecordsConfiguration
    private let idle = Mutex<[ConnectionBox]>([])
    private let slots: DispatchSemaphore

    init(path: String, size: Int, configuration: RecordsConfiguration) {
        self.path = path
        self.size = size
        self.configuration = configuration
        slots = DispatchSemaphore(value: size)
    }

    func with<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let box = try idle.withLock { $0.popLast() } ?? makeReader()
        defer { idle.withLock { $0.append(box) } }
        return try body(box.connection)
    }

    private func makeReader() throws -> ConnectionBox {
        let access: SQLiteConnection.Access = configuration.isReadOnly ? .queryOnly : .readWrite(create: false)
        let connection = try SQLiteConnection(path: path, access: access, configuration: configuration)
        try connection.execute("PRAGMA query_only=1", operation: "open reader")
        return ConnectionBox(connection)
    }
}
