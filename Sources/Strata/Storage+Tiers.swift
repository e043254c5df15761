// Each tier's typed API, on the very instance the facade routes values to: an app never opens a second store on
// the same files, and a write through either API is seen by the other at once.
extension Storage {
    /// The preference suite the facade stores preferences in (`standard`), with its typed API:
    /// ``/StrataDefaults/DefaultsKey``s, observation, ``/StrataDefaults/DefaultsStore/update(_:_:)``.
    ///
    /// ```swift
    /// try storage.defaults.set("dark", for: .selectedTheme)
    /// try storage.value(String.self, for: "selectedTheme")   // "dark", at once
    /// ```
    ///
    /// A ``/StrataDefaults/DefaultsStore`` opened separately on the same suite file shares this one's state, so it sees
    /// every write at once too; prefer this property all the same.
    /// - Throws: ``/StrataCore/StorageError`` `.notBuiltIn` when the active defaults backend is not Strata's own (an
    ///   app or a test registered another), `.noBackend` when there is none, or the suite's error when it fails to
    ///   open.
    public var defaults: DefaultsStore {
        get throws { try builtInStore(for: .defaults) }
    }

    /// The keyring the facade stores credentials in (`default`), with its typed API: items by service and account,
    /// accessibility, export. Values put through the facade are the items of service
    /// ``/StrataSecrets/SecretStore/storageBackendService`` whose account is the key.
    /// - Throws: ``/StrataCore/StorageError`` `.notBuiltIn` when the active secrets backend is not Strata's own,
    ///   `.locked` when the store has no key for its keyring, or the keyring's error when it fails to open.
    public var secrets: SecretStore {
        get throws { try builtInStore(for: .secrets) }
    }

    /// The record store the facade stores structured values in, with its typed API: collections, queries, transactions.
    /// It is the same type whichever engine is active (SQLite under the root, or PostgreSQL);
    /// ``/StrataRecords/RecordStore/name`` says which.
    /// - Throws: ``/StrataCore/StorageError`` `.notBuiltIn` when the active records backend is not Strata's own, or the
    ///   engine's error when it fails to open (a PostgreSQL server that cannot be reached).
    public var records: RecordStore {
        get throws { try builtInStore(for: .records) }
    }

    /// The file store the facade stores files in, with its typed API: streaming reads and writes, locks, metadata,
    /// compressed exports and imports.
    /// - Throws: ``/StrataCore/StorageError`` `.notBuiltIn` when the active files backend is not Strata's own.
    public var files: FileStore {
        get throws { try builtInStore(for: .files) }
    }

    /// The active backend of `tier`, as the built-in store type it must be.
    func builtInStore<Store: StorageBackend>(for tier: Tier) throws -> Store {
        let backend = try backend(for: tier)
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
}
