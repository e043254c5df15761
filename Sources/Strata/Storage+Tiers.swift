// Each tier's typed API, on the very instance the facade routes values to: an app never opens a second store on
// the same files, and a write through either API is seen by the other at once. The properties never throw: a tier
// that cannot be opened hands out a store whose first use throws the error that kept it closed.
extension Storage {
    /// The preference suite the facade stores preferences in (`standard`), with its typed API:
    /// ``/StrataDefaults/DefaultsKey``s, observation, ``/StrataDefaults/DefaultsStore/update(_:_:)``.
    ///
    /// ```swift
    /// try storage.defaults.set("dark", for: .selectedTheme)
    /// try storage.value(String.self, for: "selectedTheme")   // "dark", at once
    /// let theme = storage.defaults[.selectedTheme]            // no `try`
    /// ```
    ///
    /// The suite is opened with the store (a suite that cannot be read fails ``init(root:selector:secretsKey:registerBuiltIns:recordsURL:filesURL:configuration:)``).
    /// It is always the root's own suite: an app that makes another defaults backend active (through ``registry``)
    /// reaches that one with ``backend(for:)``. A ``/StrataDefaults/DefaultsStore`` opened separately on the same
    /// suite file shares this one's state, so it sees every write at once too; prefer this property all the same.
    /// In a shared store it is this machine's own suite, outside the store: a set of a key the catalog would place
    /// there is refused, and the store's preferences are in ``sharedDefaults``.
    public var defaults: DefaultsStore { rootStores.defaults }

    /// The shared store's suite on PostgreSQL (a `PostgresDefaults`, module `StrataDefaultsPostgres`), for typed
    /// access to the preferences every machine reads; `nil` when the defaults tier's active backend is another (a
    /// store that is not shared, whose suite is ``defaults``).
    public var sharedDefaults: PostgresDefaults? {
        (try? registry.backend(for: .defaults)) as? PostgresDefaults
    }

    /// The shared store's keyring on PostgreSQL (a `PostgresSecrets`, module `StrataSecretsPostgres`), unlocked with
    /// the store's key, for typed access to the items every machine reads; `nil` when the secrets tier's active
    /// backend is another (a store that is not shared, whose keyring is ``secrets``), or when it cannot be opened
    /// (``backend(for:)`` says why).
    public var sharedSecrets: PostgresSecrets? {
        (try? registry.backend(for: .secrets)) as? PostgresSecrets
    }

    /// The keyring the facade stores credentials in (`default`), with its typed API: items by service and account,
    /// accessibility, export. Values put through the facade are the items of service
    /// ``/StrataSecrets/SecretStore/storageBackendService`` whose account is the key.
    ///
    /// Unlocked on first use with the store's key (the `secretsKey` given to the initializer, else
    /// `STRATA_SECRETS_KEY`). Without one, or with a wrong one, the keyring is handed out locked: unlock it with
    /// ``/StrataSecrets/SecretStore/unlock(with:createIfMissing:)`` (a passphrase read from the user, say), or let
    /// its first read or write throw what unlocking threw (`.locked` naming the missing key,
    /// `.authenticationFailed` for a wrong one). Asking for the property again tries the store's key again. It is
    /// always the root's own keyring, as ``defaults`` is its own suite.
    public var secrets: SecretStore { rootStores.secretsForTypedUse() }

    /// The record store the facade stores structured values in, with its typed API: collections, queries, transactions.
    /// It is the same type whichever engine is active (SQLite under the root, or PostgreSQL);
    /// ``/StrataRecords/RecordStore/name`` says which.
    ///
    /// Opened on first use. When it cannot be (a PostgreSQL server out of reach), or the active records backend is
    /// not Strata's own, the store returned throws that error (`.backendUnavailable`, `.notBuiltIn`, ...) from every
    /// call, and asking for the property again tries to open it again.
    public var records: RecordStore {
        do {
            return try builtInStore(for: .records)
        } catch {
            let (name, location) = unopenedFacts(of: .records)
            return RecordStore(unopened: UnopenedRecordEngine(name: name, location: location, error: error))
        }
    }

    /// The file store the facade stores files in, with its typed API: streaming reads and writes, locks, metadata,
    /// compressed exports and imports.
    ///
    /// Opened on first use. When it cannot be, or the active files backend is not Strata's own, the store returned
    /// throws that error from every call, and asking for the property again tries to open it again.
    public var files: FileStore {
        do {
            return try builtInStore(for: .files)
        } catch {
            let (name, location) = unopenedFacts(of: .files)
            return FileStore(engine: UnopenedFileEngine(name: name, location: location, error: error))
        }
    }

    /// The active backend of `tier`, as the built-in store type it must be.
    func builtInStore<Store: StorageBackend>(for tier: Tier) throws(StorageError) -> Store {
        let backend: any StorageBackend
        do {
            backend = try self.backend(for: tier)
        } catch {
            throw error as? StorageError
                ?? StorageError(
                    .backendUnavailable, "the \(tier.rawValue) backend failed to open: \(error)", tier: tier)
        }
        guard let store = backend as? Store else {
            throw StorageError(
                .notBuiltIn,
                "the active \(tier.rawValue) backend is '\(backend.name)' (\(type(of: backend))), not Strata's own "
                    + "\(Store.self)",
                tier: tier,
                recovery: "Use storage.backend(for: .\(tier.rawValue)) for its byte-level API, or make a built-in "
                    + "backend active with storage.registry.activate(.\(tier.rawValue), name:)")
        }
        return store
    }

    /// The name and location of `tier`'s active backend as registered, for a store that could not open it.
    private func unopenedFacts(of tier: Tier) -> (name: String, location: String) {
        guard let facts = try? registry.facts(for: tier) else { return ("none", paths.root) }
        return (facts.name, facts.layout.first?.location ?? paths.root)
    }
}
