import Foundation
public import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension DefaultsStore {
    /// Which suite file `fileName` in `folder` is, for ``SuiteTable``: the folder's device and inode, and the name.
    static func identity(of fileName: String, in folder: DirectoryHandle, path: String) throws -> SuiteTable.Identity {
        do {
            let info = try folder.status()
            return SuiteTable.Identity(
                device: UInt64(info.st_dev), inode: UInt64(info.st_ino), fileName: ExactString(fileName))
        } catch {
            throw error.storageError("cannot inspect the defaults folder", tier: .defaults, path: path)
        }
    }

    /// The `defaults/` folder, opened from the root by descriptor (never through a link).
    static func suiteFolder(_ paths: StoragePaths) throws -> DirectoryHandle {
        guard let folder = try paths.openDirectory(for: .defaults) else {
            throw StorageError(.notFound, "the defaults folder does not exist", tier: .defaults)
        }
        return folder
    }

    /// The suite file's name in the `defaults/` folder.
    var fileName: String { suite + ".plist" }

    /// The suite's cross-process lock, relative to the folder.
    func suiteLock(in folder: DirectoryHandle) -> FileLock {
        FileLock(in: folder, name: fileName + ".lock", permissions: FilePermissions(paths.filePermissions))
    }

    // Cross-process protocol of a suite (every rule is here, next to the code that follows it):
    // - Writers hold the exclusive lock on `<suite>.plist.lock` while they read, merge and replace the file.
    // - The file is only ever replaced by rename(2), never rewritten in place, so readers need no lock: they
    //   see the old file or the new one.
    // - A writer whose last-known identity of the file differs from the file's re-reads it first and applies
    //   only its own pending keys on top: other processes' keys are kept (per-key merge).
    // - An unreadable file is moved aside only under the exclusive lock, after checking it is still the same
    //   file.

    /// Writes pending changes now, durably (fsync), merging with other processes' changes; the same for the
    /// suites that this store's keys name (``DefaultsKey/suite``).
    /// - Throws: ``/StrataCore/StorageError``: `.lockTimeout` when another process holds the suite's lock too long,
    ///   `.noSpace` or another I/O error. Pending changes stay pending and are retried by the next flush.
    public func flush() throws {
        try flushSuiteStores()
        try io.withLock { _ in
            let hasWork = state.withLock { !$0.pending.isEmpty }
            guard hasWork else { return }
            // The folder is resolved from the root once per flush; every later step is relative to it.
            let folder = try Self.suiteFolder(paths)
            let held = try suiteLock(in: folder).acquire(.exclusive, timeout: configuration.lockTimeout)
            defer { held.release() }
            try reloadIfChangedLocked(in: folder, holdingSuiteLock: true)
            try writePendingLocked(in: folder)
        }
    }

    /// Reads the suite file again when the change counter says another process has written it since this one last
    /// looked: what makes a read see a write another process has finished (the watcher brings them too, but later).
    /// A failure leaves the last view in place, as the watcher's would.
    func catchUpWithOtherProcesses() {
        guard let changeCounter else { return }
        let now = changeCounter.value
        guard state.withLock({ $0.seenChanges != now }) else { return }
        try? refresh()
    }

    /// Reads the file again now if another process changed it, and notifies observers of what changed.
    ///
    /// The store also does this by itself when it watches the file (the default).
    public func refresh() throws {
        try io.withLock { _ in try reloadIfChangedLocked(in: Self.suiteFolder(paths), holdingSuiteLock: false) }
    }

    /// Atomically reads, transforms and writes one key, across processes: no other writer can slip in between.
    ///
    /// ```swift
    /// let launches = try store.update(.launchCount) { $0 + 1 }
    /// ```
    /// - Parameters:
    ///   - key: The key.
    ///   - transform: Computes the new value from the current one (set, else registered, else default).
    /// - Returns: The value written (for an optional key, `nil` removes the key).
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` naming the stored type when the set or registered value
    ///   has another type (`transform` is not called and nothing is written), what ``set(_:for:)`` throws, what
    ///   `transform` throws, or a lock or I/O error. The change is durable when this returns.
    @discardableResult
    public func update<Value>(_ key: DefaultsKey<Value>, _ transform: (Value) throws -> Value) throws -> Value {
        let home = try home(of: key)
        if home !== self { return try home.update(key, transform) }
        try checkKey(key.name, allowingSensitiveName: key.allowsSensitiveName)
        // The key's catalog lock first, then the suite's: the order of every change that goes through the catalog.
        let (new, encoded) = try placement.change(setting: [key.name], writesInBody: false) { ledger, claimed in
            try io.withLock { _ in
                let folder = try Self.suiteFolder(paths)
                let held = try suiteLock(in: folder).acquire(.exclusive, timeout: configuration.lockTimeout)
                defer { held.release() }
                try reloadIfChangedLocked(in: folder, holdingSuiteLock: true)
                // A value of another type is not "unset": reading it as the default would overwrite it.
                let new = try transform(value(for: key) ?? key.defaultValue)
                let encoded = try DefaultsCoding.encode(new, key: key.name)
                let exact = ExactString(key.name)
                let before = state.withLock { ($0.values[exact], $0.pending[exact]) }
                let change = try stage([exact: encoded], ledger: ledger, claimed: claimed)
                if !change.keys.isEmpty { notify(change) }
                do {
                    try writePendingLocked(in: folder)
                } catch {
                    // The update did not happen: a retry must read, and transform, the value from before it.
                    if revert(exact, to: before) { notify(DefaultsChange(keys: [key.name], isExternal: false)) }
                    throw error
                }
                return (new, encoded)
            }
        }
        // An optional key updated to `nil` was removed: its placement goes too.
        if encoded == nil { try placement.change(setting: [], removing: [key.name]) { _, _ in } }
        return new
    }

    /// Puts `key` back to `before` (its value and the write it had pending) after a change that failed to reach the
    /// file; the caller holds `io`, so no other change of this process came in between.
    /// - Returns: Whether the value changed back.
    func revert(_ key: ExactString, to before: (value: PropertyListValue?, pending: Pending?)) -> Bool {
        state.withLock { state in
            let current = state.values[key]
            state.pending[key] = before.pending
            state.values[key] = before.value
            state.encodedSize +=
                DefaultsEntryRules.entrySize(key, before.value) - DefaultsEntryRules.entrySize(key, current)
            return current != before.value
        }
    }

    /// Stops watching, writes pending changes, and refuses further sets (through the suites its keys name too).
    public func close() throws {
        SuiteWatcher.shared.unwatch(self)
        try closeSuiteStores()
        try flush()
        isClosed.store(true, ordering: .relaxed)
    }

    func scheduleFlush(after delay: Duration) {
        let schedule = state.withLock { state in
            if state.flushScheduled { return false }
            state.flushScheduled = true
            return true
        }
        guard schedule else { return }
        let (seconds, attoseconds) = delay.components
        let interval = Double(seconds) + Double(attoseconds) / 1e18
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.flushScheduled = false }
            do {
                try self.flush()
                self.state.withLock { $0.lastFlushError = nil }
            } catch let error as StorageError {
                self.state.withLock { $0.lastFlushError = error }
            } catch {
                self.state.withLock {
                    $0.lastFlushError = StorageError(.io, "\(error)", tier: .defaults, path: self.path)
                }
            }
        }
    }

    /// The error of the last background write, if it failed (the changes stay pending and are retried).
    public var lastFlushError: StorageError? { state.withLock { $0.lastFlushError } }

    // MARK: With `io` held

    /// Reads the file again when its stamp differs from the one read last, or when that one was not settled
    /// (``FileStamp``: two versions written within one clock tick, the second on the first's freed inode at the
    /// same size, carry equal stamps — a merge or an `update` on such a stale read would drop another process's
    /// write). A suite written in the last two seconds is therefore compared with the bytes read or written last at
    /// each check (one read into a buffer, no parse), and read again in full only when they differ.
    /// - Parameters:
    ///   - folder: The `defaults/` folder, opened for this operation.
    ///   - holdingSuiteLock: Whether the caller holds the suite's file lock (see ``reloadLocked(in:notify:holdingSuiteLock:)``).
    func reloadIfChangedLocked(in folder: DirectoryHandle, holdingSuiteLock: Bool) throws {
        // Read before the file: a write that lands after this is counted after it, and read by the next check.
        // It is recorded as seen only with the view it describes (here once the file is found unchanged, or by the
        // reload): a reader on another thread that finds it seen reads `state` without waiting for this check.
        let observed = changeCounter?.value
        let (known, settled, kept) = state.withLock { state in
            (state.identity, state.identityIsSettled, state.unsettledBytes)
        }
        let current = FileStamp.of(fileName, in: folder)
        if current == known, settled {
            if let observed { state.withLock { $0.seenChanges = observed } }
            return
        }
        // Same stamp, not settled: the bytes decide. Equal bytes are the same suite, not parsed again.
        let readStart = Date().timeIntervalSince1970
        if current == known, let kept,
            let stamp = try Self.stamp(ifHolding: kept, fileName, in: folder, limit: readLimit)
        {
            let isSettled = stamp.isSettled(readStart: readStart)
            state.withLock {
                $0.identity = stamp
                $0.identityIsSettled = isSettled
                if isSettled { $0.unsettledBytes = nil }
                if let observed { $0.seenChanges = observed }
            }
            return
        }
        try reloadLocked(in: folder, notify: true, holdingSuiteLock: holdingSuiteLock)
    }

    /// The stamp of the suite file `fileName` in `folder` when it holds exactly `bytes`, else `nil` (also when it
    /// does not exist). One read of the size `fstat` gives: no parse, no look for growth (a file that grows after the
    /// `fstat` has another stamp at the next check).
    static func stamp(ifHolding bytes: Data, _ fileName: String, in folder: DirectoryHandle, limit: Int) throws
        -> FileStamp?
    {
        do {
            guard
                let (content, status) = try AtomicFile.readWithStatus(
                    in: folder, name: fileName, maximumSize: limit, followGrowth: false),
                content == bytes
            else { return nil }
            return FileStamp(status)
        } catch let error as StorageError {
            throw error.attributed(tier: .defaults, key: nil)
        }
    }

    /// Reads the file (or its absence) into `persisted`, keeping this process's pending changes on top.
    /// - Parameters:
    ///   - folder: The `defaults/` folder, opened for this operation.
    ///   - notify: Whether observers hear what changed.
    ///   - holdingSuiteLock: Whether the caller holds the suite's file lock. An unreadable file is moved aside under
    ///     that lock, which is not reentrant: a caller holding it must say so, or the move waits for the caller.
    func reloadLocked(in folder: DirectoryHandle, notify: Bool, holdingSuiteLock: Bool) throws {
        let observed = changeCounter?.value
        var disk: [ExactString: PropertyListValue] = [:]
        var identity: FileStamp?
        var bytes: Data?
        let readStart = Date().timeIntervalSince1970
        do {
            if let (content, readIdentity) = try readFile(in: folder) {
                identity = readIdentity
                bytes = content
                disk = try decodeSuite(content)
            }
        } catch let problem as PropertyListError {
            try moveAside(
                identity: identity, reason: problem.description, in: folder, holdingSuiteLock: holdingSuiteLock)
            identity = nil
            disk = [:]
        }
        let change = state.withLock { state -> DefaultsChange in
            var values = disk
            for (key, pending) in state.pending { values[key] = pending.value }
            let keys = Set(values.keys).union(state.values.keys).filter { values[$0] != state.values[$0] }.map(\.string)
            if let observed { state.seenChanges = observed }
            state.persisted = disk
            state.encoded = nil
            state.values = values
            state.identity = identity
            // No file is a settled state: creating one makes a stamp where there was none.
            state.identityIsSettled = identity?.isSettled(readStart: readStart) ?? true
            state.unsettledBytes = state.identityIsSettled ? nil : bytes
            state.encodedSize = values.reduce(0) { $0 + DefaultsEntryRules.entrySize($1.key, $1.value) }
            return DefaultsChange(keys: Set(keys), isExternal: true)
        }
        if notify, !change.keys.isEmpty { self.notify(change) }
    }

    /// The file's bytes and the identity of exactly the file they came from, or `nil` when it does not exist.
    func readFile(in folder: DirectoryHandle) throws -> (Data, FileStamp)? {
        try Self.readFile(fileName, in: folder, path: path, limit: readLimit)
    }

    /// The bytes of the suite file `fileName` in `folder` and the identity of exactly the file they came from, or
    /// `nil` when it does not exist.
    static func readFile(_ fileName: String, in folder: DirectoryHandle, path: String, limit: Int) throws -> (
        Data, FileStamp
    )? {
        let (fd, info): (FileDescriptor, stat)
        do {
            (fd, info) = try folder.openRegularFile(fileName)
        } catch  where error.code == ENOENT {
            return nil
        } catch  where error.code == ENXIO {
            // A FIFO, socket, device or folder at the suite file's name: damage, as an unreadable suite is.
            throw StorageError(
                .corrupt, "the suite file is not a regular file (a FIFO, socket, device or folder)", tier: .defaults,
                path: path, recovery: "Remove what is at the suite file's name; the store never made it")
        } catch {
            throw error.storageError("cannot open the suite file", tier: .defaults, path: path)
        }
        defer { Sys.close(fd) }
        let data = try AtomicFile.readAll(fd, path: path, maximumSize: limit)
        return (data, FileStamp(info))
    }

    /// The largest suite file read, and the largest its value may expand to: a suite is at most `suiteBudget`
    /// plus slack; anything far larger is not ours.
    var readLimit: Int { Self.readLimit(configuration) }

    /// ``readLimit`` for a configuration.
    static func readLimit(_ configuration: DefaultsConfiguration) -> Int {
        max(configuration.suiteBudget * 8, PropertyListLimits.defaultMaximumExpandedSize)
    }

    /// Decodes a suite file into its top-level dictionary.
    /// - Throws: ``PropertyListError`` for unreadable content or a value that expands beyond ``readLimit`` (shared
    ///   references) or nests too deep; ``/StrataCore/StorageError`` `.unsupportedVersion` for a binary plist newer
    ///   than `bplist00` (not moved aside: a newer program's data must not be disturbed).
    func decodeSuite(_ data: Data) throws -> [ExactString: PropertyListValue] {
        try Self.decodeSuite(data, path: path, limit: readLimit)
    }

    /// Decodes the suite file at `path` into its top-level dictionary, as ``decodeSuite(_:)`` does.
    static func decodeSuite(_ data: Data, path: String, limit: Int) throws -> [ExactString: PropertyListValue] {
        if data.isEmpty { throw PropertyListError("the file is empty", offset: 0) }
        if data.starts(with: Array("bplist".utf8)), !data.starts(with: BinaryPropertyList.magic), data.count >= 8 {
            let version = String(decoding: data.prefix(8), as: UTF8.self)
            throw StorageError(
                .unsupportedVersion, "the suite file is a \(version) property list; this version reads only bplist00",
                tier: .defaults, path: path, recovery: "Open it with the newer program that wrote it")
        }
        let value = try PropertyListFormat.decode(data, limits: PropertyListLimits(maximumExpandedSize: limit))
        guard case .dictionary(let dictionary) = value else {
            throw PropertyListError("the top level is a \(value.typeName), not a dictionary", offset: 0)
        }
        return dictionary
    }

    /// Moves an unreadable suite file aside (never deletes it), under the exclusive lock.
    func moveAside(identity: FileStamp?, reason: String, in folder: DirectoryHandle, holdingSuiteLock: Bool) throws {
        let held =
            holdingSuiteLock ? nil : try suiteLock(in: folder).acquire(.exclusive, timeout: configuration.lockTimeout)
        defer { held?.release() }
        // Another process may have repaired or replaced it meanwhile: move only the file we read.
        if let identity, FileStamp.of(fileName, in: folder) != identity {
            return try reloadLocked(in: folder, notify: false, holdingSuiteLock: true)
        }
        let stamp = Int(Date().timeIntervalSince1970)
        let asideName = "\(fileName).corrupt-\(stamp)-\(getpid())"
        let target = folder.path(of: asideName)
        do {
            try folder.rename(fileName, to: asideName)
        } catch let error where error.code == ENOENT {
            return
        } catch {
            throw error.storageError("cannot move the unreadable suite file aside", tier: .defaults, path: path)
        }
        try? folder.sync()
        state.withLock { $0.recoveries.append(DefaultsRecovery(movedTo: target, reason: reason)) }
    }

    /// Writes `persisted` plus every pending change as the new file. Call with `io` and the file lock held,
    /// after ``reloadIfChangedLocked(in:)``.
    ///
    /// A set reported to a catalog is asked about again here, under the file lock
    /// (``/StrataCore/TierPlacement/allowsLateWrite(of:in:claimed:ledger:)``): when another process has since moved
    /// its key to another tier or deleted it, the set is dropped, not written. A process moving the key removes it
    /// from the file under this same lock after recording the move, so a set written before that is removed by it,
    /// and a set checked after it is dropped: the stale value never stays.
    func writePendingLocked(in folder: DirectoryHandle) throws {
        let pending = state.withLock { $0.pending }
        guard !pending.isEmpty else { return }
        var stale: Set<ExactString> = []
        for (key, change) in pending {
            if let ledger = change.ledger,
                try !TierPlacement.allowsLateWrite(
                    of: key.string, in: .defaults, claimed: change.claimed, ledger: ledger)
            {
                stale.insert(key)
            }
        }
        // `persisted` and its encoding are only touched with `io` held: take them out of the state so that the merge
        // below changes them in place (no copy of the whole suite per write), and put back what they were if the
        // write fails.
        var (merged, previous) = state.withLock { state in
            defer {
                state.persisted = [:]
                state.encoded = nil
            }
            return (state.persisted, state.encoded)
        }
        var replaced: [(key: ExactString, value: PropertyListValue?)] = []
        var changes: [EncodedSuite.Change] = []
        for (key, change) in pending where !stale.contains(key) {
            let old: PropertyListValue?
            if let value = change.value {
                old = merged.updateValue(value, forKey: key)
            } else {
                old = merged.removeValue(forKey: key)
            }
            replaced.append((key, old))
            changes.append(EncodedSuite.Change(key: key, old: old, new: change.value))
        }
        var written: Data?
        var encoded: EncodedSuite?
        if stale.count < pending.count {
            do {
                let bytes: Data
                if configuration.format == .binary {
                    // A set of same-size scalars patches the last file's bytes; anything else encodes the suite.
                    let suite: EncodedSuite
                    if var patched = previous, patched.patch(changes) {
                        suite = patched
                    } else {
                        suite = BinaryPropertyList.encodeSuite(merged)
                    }
                    encoded = suite
                    bytes = suite.bytes
                } else {
                    bytes = configuration.format.encode(merged)
                }
                written = bytes
                // The suite replaced is freed in the background (RetiredFiles), not inside the rename.
                try AtomicFile.write(
                    bytes, in: folder, name: fileName, permissions: paths.filePermissions,
                    durability: configuration.durability, retiringReplaced: true)
            } catch {
                for (key, value) in replaced.reversed() { merged[key] = value }
                state.withLock {
                    $0.persisted = merged
                    $0.encoded = previous
                }
                if let error = error as? StorageError { throw error.attributed(tier: .defaults, key: nil) }
                throw error
            }
        } else {
            encoded = previous
        }
        let identity = FileStamp.of(fileName, in: folder)
        // Other processes' reads see the write from now on (``catchUpWithOtherProcesses()``); this one saw every write
        // before it, merged under the suite's lock.
        let seen = written == nil ? nil : changeCounter?.bump()
        let dropped = state.withLock { state -> Set<String> in
            if let seen { state.seenChanges = seen }
            state.persisted = merged
            state.encoded = encoded
            state.identity = identity
            state.identityIsSettled = false  // Written just now: not settled.
            state.unsettledBytes = written
            var dropped: Set<String> = []
            for (key, change) in pending where state.pending[key]?.sequence == change.sequence {
                state.pending.removeValue(forKey: key)
                guard stale.contains(key) else { continue }
                // What this process reads now is what the file holds.
                state.encodedSize +=
                    DefaultsEntryRules.entrySize(key, merged[key])
                    - DefaultsEntryRules.entrySize(key, state.values[key])
                state.values[key] = merged[key]
                dropped.insert(key.string)
            }
            return dropped
        }
        if written != nil { tellLedgers(pending, except: stale) }
        if !dropped.isEmpty { notify(DefaultsChange(keys: dropped, isExternal: true)) }
    }

    /// Tells the catalogs the sets of `pending` were reported to (all but `stale`) that they are written now
    /// (``/StrataCore/PlacementLedger/wrote(_:in:)``): a store writes late, so it, not ``TierPlacement``, says when.
    private func tellLedgers(_ pending: [ExactString: Pending], except stale: Set<ExactString>) {
        var written: [ObjectIdentifier: (ledger: any PlacementLedger, keys: [String])] = [:]
        for (key, change) in pending where change.value != nil && !stale.contains(key) {
            guard let ledger = change.ledger else { continue }
            written[ObjectIdentifier(ledger), default: (ledger, [])].keys.append(key.string)
        }
        // The suite is written; telling the observers is not part of the write, which stands if this fails.
        for (ledger, keys) in written.values { try? ledger.wrote(keys, in: .defaults) }
    }
}
