import Foundation
import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thread per process that notices when another process replaces a suite file, and makes the store reload.
///
/// On Linux it waits on inotify for renames into the watched folders; everywhere it also checks each store's
/// file identity once a second, which covers platforms and file systems without inotify.
final class SuiteWatcher: Sendable {
    static let shared = SuiteWatcher()

    private final class Entry: @unchecked Sendable {
        // Written once at creation; `store` is weak so the watcher never keeps a store alive. Read under
        // `SuiteWatcher.entries`' lock only.
        weak var store: DefaultsStore?
        let folder: String
        let fileName: String
        init(store: DefaultsStore, folder: String, fileName: String) {
            self.store = store
            self.folder = folder
            self.fileName = fileName
        }
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var watchedFolders: [Int32: String] = [:]
        var started = false
    }

    private let state = Mutex(State())
    private let inotify: Int32

    private init() {
        #if os(Linux)
            inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        #else
            inotify = -1
        #endif
    }

    func watch(_ store: DefaultsStore, folder: String, fileName: String) {
        let start = state.withLock { state -> Bool in
            state.entries[ObjectIdentifier(store)] = Entry(store: store, folder: folder, fileName: fileName)
            #if os(Linux)
                if inotify >= 0, !state.watchedFolders.values.contains(folder) {
                    let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_CREATE)
                    let descriptor = inotify_add_watch(inotify, folder, mask)
                    if descriptor >= 0 { state.watchedFolders[descriptor] = folder }
                }
            #endif
            defer { state.started = true }
            return !state.started
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "strata.defaults.watcher"
            thread.start()
        }
    }

    func unwatch(_ store: DefaultsStore) {
        state.withLock { _ = $0.entries.removeValue(forKey: ObjectIdentifier(store)) }
    }

    private func run() {
        var lastSweep = Date()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            var changed: Set<String> = []  // "folder/name" of files named in events
            if inotify >= 0 {
                var descriptor = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 250) > 0 {
                    let count = (try? Sys.read(FileDescriptor(rawValue: inotify), into: &buffer)) ?? 0
                    if count > 0 { changed = parseEvents(buffer, count: count) }
                }
            } else {
                usleep(250_000)
            }
            let sweep = Date().timeIntervalSince(lastSweep) >= 1
            if sweep { lastSweep = Date() }
            let stores = state.withLock { state in
                state.entries.values.compactMap { entry -> DefaultsStore? in
                    guard sweep || changed.contains(entry.folder + "/" + entry.fileName) else { return nil }
                    return entry.store
                }
            }
            for store in stores { try? store.refresh() }
        }
    }

    private func parseEvents(_ buffer: [UInt8], count: Int) -> Set<String> {
        var names: Set<String> = []
        #if os(Linux)
            let folders = state.withLock { $0.watchedFolders }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (descriptor, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                if let folder = folders[descriptor] {
                    names.insert(folder + "/" + String(decoding: nameBytes, as: UTF8.self))
                }
                offset += header + length
            }
        #endif
        return names
    }
}

extension DefaultsStore {
    /// Every open store, so that pending changes are written at normal process exit.
    static let openStores = OpenStores()

    final class OpenStores: Sendable {
        private final class WeakStore: @unchecked Sendable {
            // Set once at creation; read only under `OpenStores.stores`' lock or after copying out of it.
            weak var store: DefaultsStore?
            init(_ store: DefaultsStore) { self.store = store }
        }

        private let stores = Mutex<[ObjectIdentifier: WeakStore]>([:])
        private let installed = Atomic<Bool>(false)

        func register(_ store: DefaultsStore) {
            stores.withLock { stores in
                stores = stores.filter { $0.value.store != nil }
                stores[ObjectIdentifier(store)] = WeakStore(store)
            }
            if !installed.exchange(true, ordering: .relaxed) {
                atexit { DefaultsStore.openStores.flushAll() }
            }
        }

        /// Writes every store's pending changes; errors are printed, as nobody is left to catch them.
        func flushAll() {
            let open = stores.withLock { $0.values.compactMap(\.store) }
            for store in open {
                do {
                    try store.flush()
                } catch {
                    FileHandle.standardError.write(
                        Data(
                            "StrataDefaults: pending changes of suite '\(store.suite)' were not written at exit: \(error)\n"
                                .utf8))
                }
            }
        }
    }
}
