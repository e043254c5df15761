import Foundation
public import StrataCore
import StrataSystem
import Synchronization

/// A preference suite: typed, atomic on disk, shared by several processes, and observable.
///
/// The Linux counterpart of `UserDefaults(suiteName:)`, without its flaws here: every write goes through a
/// temporary file and `rename(2)` under the suite's file lock, so a crash never leaves a torn file and two
/// processes never lose each other's changes; pending sets are written at normal exit; observers hear about
/// changes made by other processes.
///
/// ```swift
/// let store = try DefaultsStore(suite: "group.com.example.shared", paths: try StoragePaths(appID: "com.example"))
/// try store.set(true, for: .hasCompletedOnboarding)
/// if try store.value(for: .hasCompletedOnboarding) == nil { print("never answered") }
/// try store.update(.launchCount) { $0 + 1 }      // atomic across processes
/// try store.flush()                               // durable now
/// ```
///
/// Reads are served from memory. Writes apply in memory at once and reach the disk as the
/// ``DefaultsConfiguration/durability`` says. The file is Apple's binary plist (or XML), readable by `plutil`
/// and by macOS.
public final class DefaultsStore: Sendable {
    /// The suite's name (`standard`, `group.com.example.shared`).
    public let suite: String
    /// The suite file: `<root>/defaults/<suite>.plist`.
    public let path: String
    /// The lock file beside it, taken exclusively by writers (never deleted).
    public let lockPath: String
    /// How the store persists and what it accepts.
    public let configuration: DefaultsConfiguration
    /// The store root: every file operation opens the `defaults/` folder from it by descriptor.
    let paths: StoragePaths
    /// ``DefaultsConfiguration/allowedSensitiveKeys`` by exact scalars: a canonically equivalent spelling of an
    /// allowed name is another key, and is checked like any other.
    let allowedSensitiveNames: Set<ExactString>

    struct Pending {
        var value: PropertyListValue?
        var sequence: UInt64
        /// The catalog the set was reported to, asked again just before the set is written
        /// (``/StrataCore/TierPlacement/allowsLateWrite(of:in:claimed:ledger:)``); `nil` for a removal and for a
        /// suite no catalog places.
        var ledger: (any PlacementLedger)? = nil
        /// Whether the catalog placed the key in this suite (or a `Storage` operation was writing it here) when the
        /// set was made.
        var claimed = false
    }

    struct Observer {
        /// The store that registered it: its observers go when it goes.
        var owner: ObjectIdentifier
        var keys: Set<String>?
        var handler: @Sendable (DefaultsChange) -> Void
    }

    /// What every store open on the suite file in this process shares (see ``SuiteTable``). Keys are held by their
    /// exact scalars (``/StrataCore/ExactString``): two canonically equivalent spellings are two keys, never merged, in
    /// memory as in the file.
    struct State {
        /// What the file held when last read or written.
        var persisted: [ExactString: PropertyListValue] = [:]
        /// `persisted` with the pending changes applied: what reads see.
        var values: [ExactString: PropertyListValue] = [:]
        /// Sets and removals not yet written; `nil` value means removed.
        var pending: [ExactString: Pending] = [:]
        /// The stamp of the suite file last read or written (`nil`: there was none).
        var identity: FileStamp?
        /// Whether ``identity`` vouches for ``persisted`` (see ``FileStamp``); until then every check re-reads.
        var identityIsSettled = true
        /// The bytes ``identity`` was read or written with, while it is not settled: a check that finds the same
        /// stamp compares the file's bytes with them instead of parsing the suite again.
        var unsettledBytes: Data?
        /// ``persisted`` as the binary file this process last wrote, which a set of same-size scalars patches
        /// (``EncodedSuite``); `nil` once the file is read again (another process wrote it) or in the XML format.
        var encoded: EncodedSuite?
        var sequence: UInt64 = 0
        var encodedSize = 0
        var flushScheduled = false
        var lastFlushError: StorageError?
        var observers: [UInt64: Observer] = [:]
        var nextObserver: UInt64 = 0
        var recoveries: [DefaultsRecovery] = []
        /// ``DefaultsStore/changeCounter``'s value when this process last read or wrote the suite file: a reader that finds the counter
        /// moved reads the file again first.
        var seenChanges: UInt64 = 0
    }

    // Lock order: `io` before `state`, never the other way. `state` is held only for memory work; `io`
    // serializes this process's reads and writes of the file (the file lock serializes processes). Both are
    // shared by every store on the same suite file in this process (``SuiteTable``), so they see one another's
    // writes at once.
    let state: SharedMutex<State>
    let io: SharedMutex<Void>
    /// The `defaults/` folder, held open for the store's life so that its inode, part of the suite's identity in
    /// ``SuiteTable``, cannot pass to another folder while a store shares state under it.
    let folderHandle: DirectoryHandle
    /// The suite's change counter (`<suite>.plist.changes`), bumped by every Strata writer of the file in any process
    /// once its write is in place, so that a read in this process sees a write another process has finished: `nil`
    /// when it cannot be made (a read-only folder), and then only the watcher brings other processes' changes.
    let changeCounter: SharedCounter?
    /// Whether ``close()`` was called on this store (the others on the suite stay open).
    let isClosed = Atomic<Bool>(false)
    /// Key names that passed ``checkKey(_:allowingSensitiveName:)`` under this store's configuration: the check
    /// runs once per name.
    let checkedKeys = Mutex<Set<ExactString>>([])
    /// This store's registered defaults: a layer in memory, under the suite's set values, that other stores on the
    /// suite do not see (each registers its own).
    let registered = Mutex<[ExactString: PropertyListValue]>([:])
    /// Why the subscript's last set failed (see ``lastSetError``).
    let subscriptError = Mutex<StorageError?>(nil)
    /// Why the subscript's last read returned the key's default in place of a stored value (see ``lastReadError``).
    let subscriptReadError = Mutex<StorageError?>(nil)
    /// Whether ``subscriptReadError`` holds an error: a read that worked takes its lock only then.
    let hasReadError = Atomic<Bool>(false)
    /// Stores on the suites that keys name (``DefaultsKey/suite``), opened on first use, by exact suite name.
    let suiteStores = Mutex<[ExactString: DefaultsStore]>([:])
    /// How changes of the suite keep the store's catalog true.
    let placement: TierPlacement

    /// Opens a suite, reading its file if there is one.
    ///
    /// An unreadable file (truncated, corrupt, not a plist, not a dictionary) is moved aside to
    /// `<suite>.plist.corrupt-<time>` — kept, never deleted — and the store starts empty; see ``recoveries``.
    /// - Parameters:
    ///   - suite: The suite's name: one file name, such as `standard` or `group.com.example.shared`.
    ///   - paths: The store root; the suite lives in its `defaults/` folder.
    ///   - configuration: Durability, format and limits. The default is
    ///     ``DefaultsConfiguration/init(durability:format:valueLimit:suiteBudget:allowedSensitiveKeys:lockTimeout:watchesExternalChanges:)``.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` for a bad suite name, `.unsupportedVersion` for a
    ///   plist format newer than `bplist00`, or an I/O error.
    public init(
        suite: String = "standard", paths: StoragePaths, configuration: DefaultsConfiguration = DefaultsConfiguration()
    ) throws {
        try Self.validateSuiteName(suite)
        let folder = try paths.directory(for: .defaults)
        self.suite = suite
        self.path = folder + "/" + suite + ".plist"
        self.lockPath = path + ".lock"
        self.configuration = configuration
        self.paths = paths
        self.allowedSensitiveNames = Set(configuration.allowedSensitiveKeys.map { ExactString($0) })
        self.folderHandle = try Self.suiteFolder(paths)
        self.placement = try TierPlacement(.defaults, store: suite, paths: paths, ledger: configuration.placement)
        let shared = SuiteTable.shared.shared(
            for: try Self.identity(of: suite + ".plist", in: folderHandle, path: path))
        self.state = shared.state
        self.io = shared.io
        self.changeCounter = try? SharedCounter(
            in: folderHandle, name: suite + ".plist.changes", permissions: FilePermissions(paths.filePermissions),
            what: "the suite's change counter")
        AtomicFile.removeStaleTemporaries(in: folderHandle)
        // Read the file whether or not another store has the suite open: its last look may be older than the file
        // (the watcher's next one is up to a second away, and an identity can repeat within a clock tick). Pending
        // writes stay on top; the others' observers hear what changed.
        try io.withLock { _ in try reloadLocked(in: folderHandle, notify: true, holdingSuiteLock: false) }
        DefaultsStore.openStores.register(self)
        if configuration.watchesExternalChanges {
            SuiteWatcher.shared.watch(self, folder: folder, fileName: suite + ".plist")
        }
    }

    /// Opens a suite under a store root folder.
    public convenience init(
        suite: String = "standard", root: String, configuration: DefaultsConfiguration = DefaultsConfiguration()
    ) throws {
        try self.init(suite: suite, paths: StoragePaths(root: root), configuration: configuration)
    }

    deinit {
        SuiteWatcher.shared.unwatch(self)
        try? flush()
        let owner = ObjectIdentifier(self)
        state.withLock { $0.observers = $0.observers.filter { $0.value.owner != owner } }
    }

    /// Files that were unreadable when opened or reloaded, and where they were moved.
    public var recoveries: [DefaultsRecovery] { state.withLock { $0.recoveries } }

    // MARK: Typed access

    /// The key's value: set, else registered, else the key's default. Setting it is ``set(_:for:)`` (`nil` removes
    /// an optional key), for code that reads better as `store[.theme] = "dark"`.
    ///
    /// Reading never throws, and never takes a value of another type for "unset" in silence: a stored value the key
    /// does not read (a string `"5"` under an `Int` key, data under a `String` key, a string that names no case of an
    /// enum) reads as the key's default, is left as it is, and the `type-mismatch` error is kept in
    /// ``lastReadError``. ``value(for:)`` throws that error instead, ``typeMismatch(for:)`` returns it, and
    /// ``update(_:_:)`` refuses such a value rather than overwrite it.
    ///
    /// Setting cannot throw either: a refused set (a credential-looking name, over a limit, a closed store, a bad
    /// ``DefaultsKey/suite``) changes nothing and is kept in ``lastSetError``. Call ``set(_:for:)`` to handle it.
    public subscript<Value>(key: DefaultsKey<Value>) -> Value {
        get {
            do {
                let value = try value(for: key)
                if hasReadError.load(ordering: .relaxed) { recordReadError(nil) }
                return value ?? key.defaultValue
            } catch {
                recordReadError(error)
                return key.defaultValue
            }
        }
        set {
            do {
                try set(newValue, for: key)
                subscriptError.withLock { $0 = nil }
            } catch let error as StorageError {
                subscriptError.withLock { $0 = error }
            } catch {
                subscriptError.withLock {
                    $0 = StorageError(.io, "the set failed: \(error)", tier: .defaults, key: key.name, path: path)
                }
            }
        }
    }

    /// Why the last set through the subscript changed nothing; `nil` when it succeeded.
    public var lastSetError: StorageError? { subscriptError.withLock { $0 } }

    /// Why the last read through the subscript returned the key's default in place of a stored value: the
    /// `type-mismatch` that ``value(for:)`` would have thrown, naming the key and the stored type (or the error
    /// opening the key's suite); `nil` when that read found a value of its type, or none.
    ///
    /// ```swift
    /// let theme = store[.theme]
    /// if let error = store.lastReadError { log.warning("\(error)") }   // a value the key cannot read is there
    /// ```
    public var lastReadError: StorageError? { subscriptReadError.withLock { $0 } }

    /// Keeps (or clears) what ``lastReadError`` reports.
    private func recordReadError(_ error: StorageError?) {
        subscriptReadError.withLock {
            $0 = error
            hasReadError.store(error != nil, ordering: .relaxed)  // under the lock: the flag never contradicts it
        }
    }

    /// The key's value as the subscript reads it (set, registered, else the key's default), without touching
    /// ``lastReadError``: for observers, which run on other threads.
    func currentValue<Value>(of key: DefaultsKey<Value>) -> Value {
        (try? value(for: key)) ?? key.defaultValue
    }

    /// Why the key's set or registered value does not read as `Value`: the `type-mismatch` error that
    /// ``value(for:)`` throws, naming the stored type (or the error opening the key's suite); `nil` when the key is
    /// unset or its value reads as `Value`.
    public func typeMismatch<Value>(for key: DefaultsKey<Value>) -> StorageError? {
        do {
            _ = try value(for: key)
            return nil
        } catch {
            return error
        }
    }

    /// The key's set or registered value, or `nil` when it has neither: "unset" is not "false" or "0".
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` when the stored value has another type,
    ///   `.invalidArgument` for a bad ``DefaultsKey/suite``.
    public func value<Value>(for key: DefaultsKey<Value>) throws(StorageError) -> Value? {
        let store = try home(of: key)
        guard let stored = store.object(forKey: key.name) else { return nil }
        return try DefaultsCoding.decode(Value.self, from: stored, key: key.name)
    }

    /// Sets the key's value, in the key's ``DefaultsKey/suite`` when it names one. For an optional key
    /// (`DefaultsKey<String?>`), a value is stored as the wrapped value itself (as a `DefaultsKey<String>` stores it)
    /// and `nil` removes the key, like ``reset(_:)``: reads then return the registered value or the key's default.
    /// - Throws: ``/StrataCore/StorageError``: `.sensitiveKey` (a credential-looking name: use the secrets tier),
    ///   `.tooLarge` (over the value limit or the suite budget: use the files tier), `.invalidArgument` (a bad suite
    ///   name), or a write error when the durability is ``/StrataCore/Durability/durable``.
    public func set<Value>(_ value: Value, for key: DefaultsKey<Value>) throws {
        guard let encoded = try DefaultsCoding.encode(value, key: key.name) else {
            try reset(key)
            return
        }
        try home(of: key).set(encoded, forKey: key.name, allowingSensitiveName: key.allowsSensitiveName)
    }

    /// Whether the key has a set value in its suite (registered defaults do not count).
    public func contains<Value>(_ key: DefaultsKey<Value>) -> Bool {
        (try? home(of: key))?.containsValue(forKey: key.name) ?? false
    }

    /// Removes the key's set value, so reads fall back to the registered value or the key's default.
    public func reset<Value>(_ key: DefaultsKey<Value>) throws {
        try home(of: key).removeObject(forKey: key.name)
    }

    /// Registers a default for a key: a layer under set values, kept in memory, never written, and seen only
    /// through this store (another store on the same suite has its own layer). Registering `nil` for an optional
    /// key removes its registered default.
    public func register<Value>(_ value: Value, for key: DefaultsKey<Value>) throws {
        let encoded = try DefaultsCoding.encode(value, key: key.name)
        try home(of: key).registered.withLock { $0[ExactString(key.name)] = encoded }
    }

    // MARK: Untyped access

    /// The set or registered value of a key, or `nil`. Keys are matched by their exact Unicode scalars: `"caf\u{E9}"`
    /// and `"cafe\u{301}"` are two keys.
    public func object(forKey key: String) -> PropertyListValue? {
        object(forKey: key, includingRegistered: true)
    }

    /// The set value of a key, or, when `includingRegistered`, its registered default; `nil` when it has neither.
    public func object(forKey key: String, includingRegistered: Bool) -> PropertyListValue? {
        catchUpWithOtherProcesses()
        let exact = ExactString(key)
        if let value = state.withLock({ $0.values[exact] }) { return value }
        return includingRegistered ? registered.withLock { $0[exact] } : nil
    }

    /// Whether the key has a set value (registered defaults do not count).
    public func containsValue(forKey key: String) -> Bool {
        catchUpWithOtherProcesses()
        let exact = ExactString(key)
        return state.withLock { $0.values[exact] != nil }
    }

    /// Every set key, sorted by their UTF-8 bytes (twin spellings of one key are two keys).
    public var allKeys: [String] {
        catchUpWithOtherProcesses()
        return state.withLock { Array($0.values.keys) }.sorted().map(\.string)
    }

    /// Every set value, registered defaults underneath.
    public func dictionaryRepresentation() -> [ExactString: PropertyListValue] {
        catchUpWithOtherProcesses()
        let values = state.withLock { $0.values }
        return registered.withLock { $0 }.merging(values) { $1 }
    }

    /// Registers defaults for several keys at once (in memory, for this store only).
    public func register(defaults: [ExactString: PropertyListValue]) {
        registered.withLock { $0.merge(defaults) { $1 } }
    }

    /// Sets a property-list value.
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The key, kept exactly as given.
    ///   - allowingSensitiveName: Permit a credential-looking key name.
    /// - Throws: See ``set(_:for:)``.
    public func set(_ value: PropertyListValue, forKey key: String, allowingSensitiveName: Bool = false) throws {
        try checkKey(key, allowingSensitiveName: allowingSensitiveName)
        try apply([ExactString(key): value])
    }

    /// Removes a key's set value.
    ///
    /// A key this process has not seen yet (another process set it since this one last read the file) is looked
    /// for in the file, under the suite's lock, before the answer is given: a removal never misses a value that is
    /// on disk.
    /// - Returns: Whether there was one.
    @discardableResult
    public func removeObject(forKey key: String) throws -> Bool {
        try placement.change(setting: [], removing: [key]) { ledger, claimed in
            if !containsValue(forKey: key) {
                try io.withLock { _ in
                    let folder = try Self.suiteFolder(paths)
                    let held = try suiteLock(in: folder).acquire(.exclusive, timeout: configuration.lockTimeout)
                    defer { held.release() }
                    try reloadIfChangedLocked(in: folder, holdingSuiteLock: true)
                }
            }
            let existed = containsValue(forKey: key)
            if existed { try apply([ExactString(key): nil], ledger: ledger, claimed: claimed) }
            return existed
        }
    }

    /// Removes every set value of the suite.
    public func removeAll() throws {
        let all = allKeys
        guard !all.isEmpty else { return }
        try apply(Dictionary(uniqueKeysWithValues: all.map { (ExactString($0), nil) }))
    }

    /// Applies changes in memory, notifies observers, and schedules or performs the write, through the store's
    /// catalog when one places the suite's keys (a key it places in another tier is refused).
    func apply(_ changes: [ExactString: PropertyListValue?]) throws {
        // One set staged for a late write, of a key the catalog places here already: no key lock (see
        // `TierPlacement.stageLateSet(of:_:)`). Observers hear of it once it is staged, outside the catalog's hold.
        if case .coalesced(let delay) = configuration.durability, changes.count == 1,
            let (key, value) = changes.first, value != nil
        {
            var change: DefaultsChange?
            let staged = try placement.stageLateSet(of: key.string) { ledger in
                change = try stage(changes, ledger: ledger, claimed: [], claimsAll: ledger != nil)
            }
            if staged {
                if let change, !change.keys.isEmpty { notify(change) }
                scheduleFlush(after: delay)
                return
            }
        }
        let setting = changes.compactMap { $0.value == nil ? nil : $0.key.string }
        let removing = changes.compactMap { $0.value == nil ? $0.key.string : nil }
        try placement.change(setting: setting, removing: removing, writesInBody: false) { ledger, claimed in
            try apply(changes, ledger: ledger, claimed: claimed)
        }
    }

    /// ``apply(_:)`` for changes already reported to `ledger` (which placed `claimed` here).
    func apply(
        _ changes: [ExactString: PropertyListValue?], ledger: (any PlacementLedger)?, claimed: Set<ExactString>,
        claimsAll: Bool = false
    ) throws {
        let change = try stage(changes, ledger: ledger, claimed: claimed, claimsAll: claimsAll)
        if !change.keys.isEmpty { notify(change) }
        switch configuration.durability {
        case .durable, .atomicOnly:
            try flush()
        case .coalesced where ledger != nil && changes.values.contains(where: { $0 == nil }):
            // The catalog drops a removed key when this change returns: the file loses it first, so that no other
            // process meets the key in the suite with no record (a read there would adopt it back).
            try flush()
        case .coalesced(let delay):
            scheduleFlush(after: delay)
        }
    }

    /// Checks the limits and records changes in memory as pending. Does not notify or write.
    /// - Parameters:
    ///   - ledger: The catalog the changes were reported to, asked again before a set is written.
    ///   - claimed: The keys it placed in this suite when the changes were made.
    ///   - claimsAll: Whether it placed every key of `changes` here (a set staged on a settled key).
    func stage(
        _ changes: [ExactString: PropertyListValue?], ledger: (any PlacementLedger)?, claimed: Set<ExactString>,
        claimsAll: Bool = false
    ) throws(StorageError) -> DefaultsChange {
        try state.withLock { state throws(StorageError) -> DefaultsChange in
            guard !isClosed.load(ordering: .relaxed) else {
                throw StorageError(.closed, "the suite was closed", tier: .defaults, path: path)
            }
            var size = state.encodedSize
            for (key, value) in changes {
                let entry = try DefaultsEntryRules.checkedEntrySize(
                    key, value, valueLimit: configuration.valueLimit)
                size += entry - DefaultsEntryRules.entrySize(key, state.values[key])
            }
            if size > configuration.suiteBudget, size > state.encodedSize {
                throw DefaultsEntryRules.overBudget(
                    size: size, budget: configuration.suiteBudget,
                    key: changes.count == 1 ? changes.keys.first?.string : nil)
            }
            var changed: Set<String> = []
            for (key, value) in changes where state.values[key] != value {
                state.sequence += 1
                state.pending[key] = Pending(
                    value: value, sequence: state.sequence, ledger: value == nil ? nil : ledger,
                    claimed: claimsAll || claimed.contains(key))
                state.values[key] = value
                changed.insert(key.string)
            }
            state.encodedSize = size
            return DefaultsChange(keys: changed, isExternal: false)
        }
    }

    /// Checks a key's name (``DefaultsEntryRules/checkName(_:allowingSensitiveName:allowed:)``), once per name under
    /// this store's configuration.
    func checkKey(_ key: String, allowingSensitiveName: Bool) throws {
        let exact = ExactString(key)
        if checkedKeys.withLock({ $0.contains(exact) }) { return }
        try DefaultsEntryRules.checkName(
            key, allowingSensitiveName: allowingSensitiveName, allowed: allowedSensitiveNames)
        if !allowingSensitiveName {
            checkedKeys.withLock { checked in
                if checked.count >= 4096 { checked.removeAll(keepingCapacity: true) }
                checked.insert(exact)
            }
        }
    }
}
