import Foundation
import StrataRecords
import Synchronization

/// A connection handed to one thread at a time: by the writer lock or by the reader pool.
final class ConnectionBox: @unchecked Sendable {
    // Only touched by the thread that holds the writer lock or has checked it out of the pool.
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
}

/// Read-only connections, checked out one per reading thread; opened lazily up to `size`.
///
/// The connection given back last waits in a slot of its own, taken and given back with one atomic exchange
/// each: a thread reading again and again (a run of point gets) takes no lock and touches no array. The others
/// wait in `idle`. The semaphore bounds how many are checked out at once, so that no more than `size` are
/// ever opened.
final class ReaderPool: Sendable {
    let path: String
    let size: Int
    let configuration: RecordsConfiguration
    private let idle = Mutex<[ConnectionBox]>([])
    /// The connection given back last (a retained `ConnectionBox`), or 0.
    private let recent = Atomic<UInt>(0)
    private let slots: DispatchSemaphore

    init(path: String, size: Int, configuration: RecordsConfiguration) {
        self.path = path
        self.size = size
        self.configuration = configuration
        slots = DispatchSemaphore(value: size)
    }

    deinit {
        if let box = UnsafeMutableRawPointer(bitPattern: recent.exchange(0, ordering: .acquiring)) {
            Unmanaged<ConnectionBox>.fromOpaque(box).release()
        }
    }

    func with<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let box: ConnectionBox
        if let recent = UnsafeMutableRawPointer(bitPattern: recent.exchange(0, ordering: .acquiring)) {
            box = Unmanaged<ConnectionBox>.fromOpaque(recent).takeRetainedValue()
        } else {
            box = try idle.withLock { $0.popLast() } ?? makeReader()
        }
        defer { giveBack(box) }
        return try body(box.connection)
    }

    /// Puts `box` in the slot, or with the idle ones when the slot is full.
    private func giveBack(_ box: ConnectionBox) {
        let retained = Unmanaged.passRetained(box)
        let address = UInt(bitPattern: retained.toOpaque())
        guard !recent.compareExchange(expected: 0, desired: address, ordering: .releasing).exchanged else { return }
        retained.release()
        idle.withLock { $0.append(box) }
    }

    private func makeReader() throws -> ConnectionBox {
        let access: SQLiteConnection.Access = configuration.isReadOnly ? .queryOnly : .readWrite(create: false)
        let connection = try SQLiteConnection(path: path, access: access, configuration: configuration)
        try connection.execute("PRAGMA query_only=1", operation: "open reader")
        return ConnectionBox(connection)
    }
}
