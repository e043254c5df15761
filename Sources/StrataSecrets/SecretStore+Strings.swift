import StrataCore

/// Secrets read as text, as most of them are (a token, a password): `store.value(String.self, …)` and a subscript,
/// where ``get(service:account:)`` returns the bytes as a ``Secret``.
///
/// ```swift
/// let token = try store.value(String.self, service: "api.example.com", account: "alice")
/// let same = try store[service: "api.example.com", account: "alice"]
/// let viaStorage = try store["api/token"]   // a key stored through Storage (service `strata.storage`)
/// ```
///
/// A secret whose bytes are not UTF-8 text is `.typeMismatch`, never `nil`: `nil` says only that there is no item.
extension SecretStore {
    /// The secret stored for a service and account, as UTF-8 text.
    /// - Parameters:
    ///   - type: `String.self`.
    ///   - service: The item's service.
    ///   - account: The item's account.
    /// - Returns: The text, or `nil` only when there is no such item.
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` naming the keyring, service and account when the bytes
    ///   are not UTF-8 (read them with ``get(service:account:)``), or what ``get(service:account:)`` throws.
    public func value(_ type: String.Type, service: String, account: String) throws -> String? {
        guard let secret = try get(service: service, account: account) else { return nil }
        guard let text = secret.stringValue else {
            var error = StorageError(
                .typeMismatch,
                "the secret for service '\(service)', account '\(account)' in keyring '\(keyring)' holds "
                    + "\(secret.count) bytes that are not UTF-8 text", tier: .secrets, key: account,
                recovery: "Read it as bytes: get(service:account:), or value(Secret.self, for:) through Storage")
            error.collection = keyring
            throw error
        }
        return text
    }

    /// The secret stored under a byte-level key (one written through `Storage` or ``put(_:for:)``: the account of
    /// the service ``storageBackendService``), as UTF-8 text.
    /// - Returns: The text, or `nil` only when there is no such key.
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` when the bytes are not UTF-8, `.invalidKey` for a key
    ///   ``/StrataCore/StoragePaths/validateKey(_:)`` refuses, or what ``get(service:account:)`` throws.
    public func value(_ type: String.Type, for key: String) throws -> String? {
        try StoragePaths.validateKey(key, for: .secrets)
        return try value(String.self, service: Self.storageBackendService, account: key)
    }

    /// The secret stored for a service and account, as UTF-8 text: ``value(_:service:account:)``.
    public subscript(service service: String, account account: String) -> String? {
        get throws { try value(String.self, service: service, account: account) }
    }

    /// The secret stored under a byte-level key, as UTF-8 text: ``value(_:for:)``.
    public subscript(key: String) -> String? {
        get throws { try value(String.self, for: key) }
    }
}
