import StrataSecrets

extension Storage {
    /// The value under `key` as text: what the generic `value(_:for:)` returns for `String`, and for a secret (which
    /// the secrets tier holds as bytes, such as one stored as a ``/StrataSecrets/Secret``) its bytes as UTF-8 text.
    ///
    /// ```swift
    /// try storage.set(Secret("tok_live"), for: "api/token")
    /// let token = try storage.value(String.self, for: "api/token")   // "tok_live"
    /// ```
    /// - Returns: The text, or `nil` when no tier holds the key.
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` naming the tier and the key when the value is not text:
    ///   a secret whose bytes are not UTF-8 (read it with `value(Secret.self, for:)`), or a value of another type in
    ///   another tier; or the tier's error.
    public func value(_ type: String.Type, for key: String) throws -> String? {
        do {
            return try typedValue(String.self, for: key)
        } catch let error as StorageError where error.code == .typeMismatch && error.tier == .secrets {
            guard let secret = try value(Secret.self, for: key) else { return nil }
            guard let text = secret.stringValue else {
                throw StorageError(
                    .typeMismatch, "the secret holds \(secret.count) bytes that are not UTF-8 text", tier: .secrets,
                    key: key, recovery: "Read it as bytes: value(Secret.self, for:)")
            }
            return text
        }
    }

    /// The generic `value(_:for:)` (the overload above reads `String` through it).
    private func typedValue<Value: Codable & Sendable>(_ type: Value.Type, for key: String) throws -> Value? {
        try value(type, for: key)
    }
}
