import Foundation
import StrataCore
import StrataPostgresClient
public import StrataSecrets
import Synchronization

extension PostgresSecrets {
    /// Unlocks the keyring, and creates it (with a new random data key wrapped under `provider`) when it does not
    /// exist yet and `createIfMissing`. Every machine unlocks it with the same key, which never reaches the server.
    /// - Parameters:
    ///   - provider: The key (a key file, `STRATA_SECRETS_KEY`, an in-memory key) or passphrase.
    ///   - createIfMissing: Whether a missing keyring is created. The default is `true`.
    /// - Throws: ``/StrataCore/StorageError``: `.authenticationFailed` for a wrong key, `.invalidArgument` for a
    ///   passphrase on a key-protected keyring or the reverse, `.notFound` for a missing keyring when not
    ///   `createIfMissing`, `.rolledBack` for a manifest older than this machine saw (see ``anchorPath``),
    ///   `.corrupt`, or the server's errors.
    public func unlock(with provider: KeyProvider, createIfMissing: Bool = true) throws {
        /// The keyring row, with the manifest when it is not sequence `held` (no item: `""` names none).
        func keyringRow(_ held: Int64) throws -> PostgresResult {
            try pool.with { connection in
                try connection.query(
                    PostgresSecretsSQL.read, [.text(keyring), .text(String(held)), .text("")], operation: "unlock")
            }
        }
        var row = try keyringRow(-1)
        if row.rowCount == 0 {
            guard createIfMissing else {
                var error = StorageError(
                    .notFound, "there is no keyring '\(keyring)'", tier: .secrets, path: location,
                    recovery: "Check the keyring's name; a keyring is created by the first unlock that may create it")
                error.collection = keyring
                throw error
            }
            try create(with: provider)
            row = try keyringRow(-1)
            // Not made: item rows of the keyring are there without it (made by another machine meanwhile, the row
            // would be there).
            guard row.rowCount > 0 else { throw try lostKeyring(leftovers: true) }
        }
        let keyringBytes = try hex(row.text(0, 1), what: "keyring file")
        let file = try KeyringFile.parse(Data(keyringBytes), expectedName: keyring, path: location)
        let unwrapped = try file.unwrap(with: provider, configuration: secretsConfiguration, path: location)
        let keys = try DataKeys(unwrapped.data)
        let highest = readAnchor(keyringID: file.id)
        state.withLock { state in
            // What this instance saw of the same keyring stays seen across a lock and unlock.
            let seen = state.keyringFile?.id == file.id ? state.highestSequence : 0
            state = PostgresKeyringState()
            state.provider = provider
            state.keyringBytes = keyringBytes
            state.keyringFile = file
            state.keys = keys
            state.names = unwrapped.names
            state.highestSequence = max(highest, seen)
            state.unwrappedKeyringBytes = keyringBytes
        }
        // The manifest read afresh, after the anchor: a write in between would make the row read above look old.
        _ = try consistent(keyringRow)
    }

    /// Inserts a new keyring row (nothing when another machine made it meanwhile: its keyring is the one unlocked).
    ///
    /// Never over what a lost keyring left: item rows of its name (sealed under a data key only its row could give
    /// back, so a new keyring would hide them), or a keyring this machine has seen (its anchor file names one).
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming what is left and the way out.
    private func create(with provider: KeyProvider) throws {
        if anchorNamesAKeyring { throw try lostKeyring(leftovers: false) }
        let (wrapping, kdf) = try newWrapping(provider)
        defer { wrapping.wipe() }
        let dataKey = try GuardedKey.random()
        let names = try GuardedKey.random()
        let id = Sodium.random(16)
        let manifest = try ItemManifest(keyCheck: dataKey.check()).serialized(
            keyringID: id, key: DataKeys(dataKey).manifest)
        let file = try KeyringFile.wrapping(
            dataKey, names: names, name: keyring, id: id, provider: provider.kind, kdf: kdf, with: wrapping)
        try pool.with { connection in
            _ = try connection.query(
                PostgresSecretsSQL.create,
                [.text(keyring), .binary([UInt8](file.serialized)), .binary([UInt8](manifest))], operation: "create")
        }
    }

    /// The refusal to make the keyring again over what a lost one left: its item rows (`leftovers`), or this
    /// machine's memory of it (its anchor file).
    private func lostKeyring(leftovers: Bool) throws -> StorageError {
        let count = try pool.with { connection in
            try connection.query(PostgresSecretsSQL.itemCount, [.text(keyring)], operation: "create").text(0, 0)
        }
        var error = StorageError(
            .corrupt,
            leftovers
                ? "the keyring '\(keyring)' is not on the server but \(count) of its item row(s) are; a new keyring "
                    + "cannot open them"
                : "the keyring '\(keyring)' is not on the server, and this machine has seen it there (its anchor file "
                    + "\(anchorPath ?? "") says so): it was removed behind the store's back",
            tier: .secrets, path: location,
            recovery: "Restore the keyring's rows from a backup; or, to start over without them, delete its rows from "
                + "strata_secrets" + (anchorPath.map { " and remove \($0)" } ?? ""))
        error.collection = keyring
        return error
    }

    /// A wrapping key for a new keyring file under `provider`, with new Argon2id parameters for a passphrase. The
    /// caller wipes the key.
    func newWrapping(_ provider: KeyProvider) throws -> (key: GuardedKey, kdf: KDFParameters?) {
        let kdf = provider.isPassphrase ? secretsConfiguration.newKDFParameters() : nil
        return (try provider.wrappingKey(kdf: kdf), kdf)
    }

    /// Wipes the data key and the `whenUnlocked` class key from memory; `afterFirstUnlock` items stay readable.
    public func lock() {
        state.withLock { $0.keys?.lock() }
    }

    /// Whether the data key is out of memory (never unlocked, or locked since).
    public var isLocked: Bool { state.withLock { $0.keys?.isLocked ?? true } }

    // MARK: The keyring as the server has it

    /// The clear sequence number of the manifest this instance holds (`-1`: none), sent with each read so that the
    /// server sends the manifest again only when it changed.
    var rowSequenceHeld: Int64 { state.withLock { $0.manifest == nil ? -1 : $0.rowSequence } }

    /// Runs `query` with the sequence number held, and once more asking for the manifest (`-1`) when the answer
    /// is stale: the server had the manifest this instance held when the statement ran, but another thread moved
    /// the instance on since, or the manifest sent is older than one this machine had seen before the statement
    /// was sent. (A manifest older than one seen only while the statement ran is a concurrent write's, and a
    /// consistent answer of its own: used, not adopted.)
    /// - Returns: The rows and the keyring they were read with.
    /// - Throws: ``/StrataCore/StorageError`` `.rolledBack` when the fresh statement's manifest is still older,
    ///   `.notFound` when the keyring row is gone, or what `query` throws.
    func consistent(_ query: (Int64) throws -> PostgresResult) throws -> (PostgresResult, CurrentKeyring) {
        guard let found = try consistent({ held in (try query(held), column: 0) }) else { throw keyringGone() }
        return (found.row, found.keyring)
    }

    /// ``consistent(_:)`` for a statement whose keyring columns begin at a column of its choosing, and which may find
    /// no need to read the keyring (`nil`: nothing more is asked, and `nil` is returned).
    func consistent(_ query: (Int64) throws -> (row: PostgresResult, column: Int)?) throws
        -> (row: PostgresResult, column: Int, keyring: CurrentKeyring)?
    {
        var held = rowSequenceHeld
        while true {
            // What this machine had seen before the statement: committed then, so any statement sent after sees it.
            let floor = state.withLock { $0.highestSequence }
            guard let (row, column) = try query(held) else { return nil }
            guard row.rowCount > 0, !row.isNull(0, column) else { throw keyringGone() }
            if let keyring = try current(row, column: column, floor: floor, final: held == -1) {
                return (row, column, keyring)
            }
            held = -1
        }
    }

    /// The keyring as three columns of `row` from `column` give it: the clear sequence number, then the keyring file
    /// and the manifest as hex, or `NULL` when the server has the manifest this instance holds.
    /// - Parameters:
    ///   - floor: The highest sequence number this machine had seen before the statement was sent.
    ///   - final: Whether the manifest was asked for: a manifest older than `floor` is then a rollback, not a stale
    ///     answer.
    /// - Returns: `nil` for a stale answer (see ``consistent(_:)``).
    func current(_ row: PostgresResult, column: Int = 0, floor: UInt64, final: Bool) throws -> CurrentKeyring? {
        guard let rowSequence = Int64(row.text(0, column)), rowSequence >= 0 else {
            throw StorageError(
                .corrupt, "the keyring row's sequence number is not one a writer makes (\(row.text(0, column)))",
                tier: .secrets, path: location, recovery: "Restore the keyring's rows from a backup")
        }
        let (held, isUnlocked) = state.withLock { state -> (CurrentKeyring?, Bool) in
            guard let keys = state.keys, let names = state.names, let file = state.keyringFile else {
                return (nil, false)
            }
            guard row.isNull(0, column + 1), let manifest = state.manifest, state.rowSequence == rowSequence else {
                return (nil, true)
            }
            return (CurrentKeyring(id: file.id, keys: keys, names: names, manifest: manifest), true)
        }
        guard isUnlocked else { throw notUnlocked() }
        if let held { return held }
        // The server had the manifest held when the statement ran, and this instance has moved on since.
        if row.isNull(0, column + 1) { return nil }
        return try adopt(
            keyringBytes: hex(row.text(0, column + 1), what: "keyring file"),
            manifestBytes: hex(row.text(0, column + 2), what: "manifest"),
            rowSequence: rowSequence, floor: floor, final: final)
    }

    /// Authenticates a keyring file and manifest the server sent, and makes them this instance's when newer.
    private func adopt(
        keyringBytes: [UInt8], manifestBytes: [UInt8], rowSequence: Int64, floor: UInt64, final: Bool
    ) throws
        -> CurrentKeyring?
    {
        let known = state.withLock { ($0.keyringBytes, $0.keyringFile, $0.keys, $0.names, $0.provider) }
        guard let knownFile = known.1, var keys = known.2, var names = known.3, let provider = known.4 else {
            throw notUnlocked()
        }
        var file = knownFile
        if keyringBytes != known.0 {
            // A change of key or a rotation on another machine.
            file = try KeyringFile.parse(Data(keyringBytes), expectedName: keyring, path: location)
            guard file.id == knownFile.id else {
                throw StorageError(
                    .corrupt,
                    "the keyring on the server is not the one this store unlocked (another id): it was "
                        + "removed and made again behind the store's back", tier: .secrets, path: location,
                    recovery: "Find out who replaced it; restore the keyring's rows from a backup")
            }
            // After a change of key the data key is the one held, which the manifest names: nothing to unwrap
            // (a locked store reads on too). After a rotation it is not: unwrap the new file with this machine's key.
            // (Decided by the key the manifest names; the manifest is authenticated below either way.)
            let sameDataKey = ItemManifest.unauthenticatedHeader(Data(manifestBytes))?.keyCheck == keys.check
            if !sameDataKey {
                guard !keys.isLocked else {
                    throw StorageError(
                        .locked, "the keyring was rotated on another machine, and this store is locked",
                        tier: .secrets, path: location, recovery: "Unlock it again")
                }
                do {
                    let unwrapped = try file.unwrap(
                        with: provider, configuration: secretsConfiguration, path: location)
                    keys = try DataKeys(unwrapped.data)
                    names = unwrapped.names
                } catch var error as StorageError where error.code == .authenticationFailed {
                    error.message =
                        "the keyring was rotated on another machine under a key other than the one this "
                        + "store was unlocked with"
                    error.recovery = "Unlock it with the new key (the one every machine of the store now uses)"
                    throw error
                }
            }
        }
        let manifest: ItemManifest
        do {
            manifest = try ItemManifest.parse(
                Data(manifestBytes), keyringID: file.id, keys: [keys], path: location + "/items.manifest"
            ).0
        } catch let error as StorageError where error.code == .locked {
            throw rolledBack(
                "the manifest is tagged under another data key than the keyring file wraps: one of the two was put "
                    + "back from before a rotation", key: nil)
        }
        enum Verdict { case older, concurrent, adopted }
        let verdict = state.withLock { state -> Verdict in
            // Older than a manifest seen before the statement: stale, or put back.
            guard manifest.sequence >= floor else { return .older }
            // Older than one seen since (a write committed while the statement ran): this answer's own, not kept.
            guard manifest.sequence >= state.highestSequence else { return .concurrent }
            state.highestSequence = manifest.sequence
            state.keyringBytes = keyringBytes
            state.keyringFile = file
            if keys.check != state.keys?.check {
                // A rotation: the new keys. (The same data key keeps the keys held, which a lock or unlock since
                // the statement may have replaced.)
                state.keys = keys
                state.names = names
                state.fileNames = [:]
                state.unwrappedKeyringBytes = keyringBytes
            }
            state.manifest = manifest
            state.rowSequence = rowSequence
            return .adopted
        }
        switch verdict {
        case .older:
            guard final else { return nil }
            throw rolledBack(
                "the server's item manifest (sequence \(manifest.sequence)) is older than one this machine has seen "
                    + "(\(floor)): the keyring's rows were put back from an older copy", key: nil)
        case .concurrent: break
        case .adopted: advanceAnchor(to: manifest.sequence, keyringID: file.id)
        }
        return CurrentKeyring(id: file.id, keys: keys, names: names, manifest: manifest)
    }

    /// Seals `manifest` with the next sequence number, tagged under `keyring`'s keys, and runs `write` with that
    /// number and the bytes, in the writer's transaction.
    /// - Returns: `keyring` with the manifest written, which ``write(_:operation:_:)`` makes this instance's once the
    ///   transaction commits.
    func commit(
        _ manifest: ItemManifest, keyring: CurrentKeyring, _ write: (_ sequence: Int64, _ bytes: [UInt8]) throws -> Void
    ) throws -> CurrentKeyring {
        var next = keyring
        next.manifest = manifest
        guard let sequence = Int64(exactly: keyring.manifest.sequence + 1) else {
            throw StorageError(
                .corrupt, "the manifest's sequence number is out of range", tier: .secrets, path: location,
                recovery: "Restore the keyring's rows from a backup")
        }
        next.manifest.sequence = UInt64(sequence)
        try write(
            sequence,
            [UInt8](try next.manifest.serialized(keyringID: keyring.id, key: keyring.keys.manifest)))
        return next
    }

    /// After a commit: the keyring as it was written (its manifest, the keys that tag it, and its keyring file when
    /// that was written too, then unwrapped by `provider`) becomes this instance's — unless a newer one already is.
    func remember(_ keyring: CurrentKeyring, file: KeyringFile? = nil, provider: KeyProvider? = nil) {
        state.withLock { state in
            // The key that opens the file written: also when another thread adopted a later manifest meanwhile,
            // as long as the keyring file is still this one.
            if let file, let provider,
                keyring.manifest.sequence >= state.manifest?.sequence ?? 0
                    || state.keyringBytes == [UInt8](file.serialized)
            {
                state.keyringBytes = [UInt8](file.serialized)
                state.keyringFile = file
                state.unwrappedKeyringBytes = state.keyringBytes
                state.provider = provider
            }
            guard keyring.manifest.sequence >= state.manifest?.sequence ?? 0 else { return }
            state.manifest = keyring.manifest
            state.rowSequence = Int64(clamping: keyring.manifest.sequence)
            if keyring.keys.check != state.keys?.check {
                // Written under new keys (a rotation); the same data key keeps the keys held (see `adopt`).
                state.keys = keyring.keys
                state.names = keyring.names
            }
            state.highestSequence = max(state.highestSequence, keyring.manifest.sequence)
        }
        advanceAnchor(to: keyring.manifest.sequence, keyringID: keyring.id)
    }
}
