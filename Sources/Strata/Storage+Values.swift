// Typed values through the facade: one encoding for every API. A value is first the property-list value a
// preference suite would hold (`DefaultsCoding`'s rules: a `String` is `.string`, an `Int` `.integer`, an
// `enum Theme: String` its raw value, any other `Codable` JSON `.data`); the defaults tier stores exactly that, and
// the tiers that hold bytes store its byte form (`PropertyListValue+ByteForm.swift`), whose content type the catalog
// records. Reading goes back the same way, so a value reads back the same through `storage.value`, a `DefaultsKey`,
// `strata defaults get`, and after a move.
import StrataCatalog

extension Storage {
    /// The content type recorded for a structured value (any `Codable` that is not a property-list type).
    public static let structuredContentType = "application/json"

    /// Stores a typed value in the tier the selector picks for it, moving it there if the key lives in another tier.
    ///
    /// Without a descriptor, one is inferred from the type: `String`, `Int`, `Bool`, `Double`, `Date`, `Data`, `URL`,
    /// arrays and dictionaries of them, and raw-representable values whose raw value is one of these scalars
    /// (`enum Theme: String`, stored as the raw value) are preferences; any other `Codable` is structured (JSON). A
    /// ``/StrataSecrets/Secret`` is a credential (the `set(_:for:as:)` that takes a ``/StrataSecrets/Secret``), and
    /// `Data` with a content type a file (``set(_:for:contentType:)``). An `Optional` is stored as its value, and
    /// `nil` removes the key from every tier, as ``delete(_:)`` does.
    ///
    /// ```swift
    /// try storage.set("dark", for: "selectedTheme")                 // a plist string in defaults
    /// try storage.set(Theme.dark, for: "theme")                     // the string "dark" in defaults
    /// try storage.set(String?.none, for: "selectedTheme")           // removed
    /// try storage.set(Profile(name: "Ada"), for: "profiles/ada")    // JSON in records
    /// try storage.set("tok_live", for: "api/token", as: DataDescriptor(kind: .credential, estimatedSize: 8))
    /// let theme = try storage.value(String.self, for: "selectedTheme")
    /// ```
    ///
    /// In defaults the value is stored natively, so ``/StrataDefaults/DefaultsKey``s and `strata defaults get` read it;
    /// elsewhere its byte form is stored (a string's UTF-8, an integer's digits, JSON for a structured value), which is
    /// also what ``data(for:)`` returns for it in any tier.
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - descriptor: What the selector is told. The default (`nil`) infers it from the type; its estimated size is
    ///     raised to the stored size when smaller.
    /// - Returns: The selection that routed it, or `nil` when `value` is `nil` (the key was removed).
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` when the value does not encode, or what
    ///   ``put(_:for:as:)`` (or, for `nil`, ``delete(_:)``) throws.
    @discardableResult
    public func set<Value: Codable & Sendable>(
        _ value: Value, for key: String, as descriptor: DataDescriptor? = nil
    ) throws -> Selection? {
        let encoded: (value: PropertyListValue, isNative: Bool)?
        do {
            encoded = try PropertyListValue.storedForm(of: value)
        } catch let error as StorageError {
            throw Self.relabelled(error, tier: nil, key: key)
        }
        guard let (stored, isNative) = encoded else {
            try delete(key)
            return nil
        }
        let bytes = try stored.byteForm()
        let kind: DataKind = isNative ? .preference : .structured
        let described = descriptor ?? DataDescriptor(kind: kind, estimatedSize: bytes.count)
        let contentType = stored.byteFormContentType ?? (isNative ? described.contentType : Self.structuredContentType)
        return try put(bytes, for: key, as: described, contentType: contentType)
    }

    /// Stores bytes of a known media type: with no descriptor, a file.
    ///
    /// ```swift
    /// try storage.set(pdf, for: "exports/report.pdf", contentType: "application/pdf")
    /// ```
    /// - Returns: The selection that routed it.
    /// - Throws: What ``put(_:for:as:)`` throws.
    @discardableResult
    public func set(_ data: Data, for key: String, contentType: String) throws -> Selection {
        try put(data, for: key, as: DataDescriptor(kind: .file, estimatedSize: data.count, contentType: contentType))
    }

    /// Stores a secret: with no descriptor, a credential, so it goes to the secrets tier.
    /// - Returns: The selection that routed it.
    /// - Throws: What ``put(_:for:as:)`` throws (`.locked` when the secrets tier has no key).
    @discardableResult
    public func set(_ secret: Secret, for key: String, as descriptor: DataDescriptor? = nil) throws -> Selection {
        try put(secret.data, for: key, as: descriptor ?? DataDescriptor(kind: .credential, estimatedSize: secret.count))
    }

    /// The value under `key` as `type`, from whichever tier holds it.
    ///
    /// A value written through a tier's own API is read too (`storage.defaults.set(42, for: .launchCount)` reads back
    /// as `42`). Conversions are those of ``/StrataDefaults/DefaultsStore/value(for:)``: an integer reads as a
    /// `Double`, `0` and `1` as a `Bool`; nothing else is converted.
    /// - Returns: The value, or `nil` when no tier holds one.
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` naming the stored type when the value is of another type
    ///   (never a default in its place), `.corrupt` when stored bytes are not their type's form, or the tier's error.
    public func value<Value: Codable & Sendable>(_ type: Value.Type, for key: String) throws -> Value? {
        guard let (stored, tier) = try storedValue(for: key) else { return nil }
        do {
            return try stored.decoded(as: type)
        } catch let error as StorageError {
            throw Self.relabelled(error, tier: tier, key: key)
        }
    }

    /// The secret under `key`: the byte form of whatever is stored there (a string's UTF-8 bytes).
    /// - Returns: The secret, or `nil` when no tier holds the key.
    /// - Throws: ``/StrataCore/StorageError`` from the tier.
    public func value(_ type: Secret.Type, for key: String) throws -> Secret? {
        try data(for: key).map { Secret($0) }
    }

    /// The property-list value under `key` and the tier holding it.
    ///
    /// Defaults is asked for the value itself: its type there is the truth even when the typed API changed it behind
    /// the catalog, so it is read without a lock, where the catalog points, and accepted if the catalog did not change
    /// meanwhile (as ``data(for:)`` does). The other tiers hold bytes whose type is the content type in the catalog:
    /// they are read under the key's lock, so that the bytes and the content type belong to the same write.
    func storedValue(for key: String) throws -> (PropertyListValue, Tier)? {
        for _ in 0..<8 {
            let before = catalog.changeCount
            guard try catalog.tier(of: key) == .defaults,
                let defaults = try backend(for: .defaults, key: key) as? DefaultsStore
            else { break }
            let value = defaults.object(forKey: key, includingRegistered: false)
            if catalog.changeCount == before {
                if let value { return (value, .defaults) }
                break  // Not where the catalog points: under the key's lock, the entry is repaired.
            }
        }
        try StoragePaths.validateKey(key)
        return try catalog.withKeyLock(key) { () throws -> (PropertyListValue, Tier)? in
            // As `data(for:)`: an entry whose tier does not hold the key is repaired, and a copy found elsewhere read.
            let found: StorageLocation?
            if let location = try catalog.location(of: key) {
                if let value = try typedValue(of: key, at: location) { return value }
                found = try repair(location)?.location
            } else {
                found = try adopt(key)?.location
            }
            guard let found else { return nil }
            return try typedValue(of: key, at: found)
        }
    }

    /// The property-list value `location`'s tier holds under `key` (the caller holds the key's lock), or `nil`.
    private func typedValue(of key: String, at location: StorageLocation) throws -> (PropertyListValue, Tier)? {
        let backend = try backend(for: location.tier, key: key)
        if let defaults = backend as? DefaultsStore {
            return defaults.object(forKey: key, includingRegistered: false).map { ($0, location.tier) }
        }
        guard let bytes = try backend.data(for: key) else { return nil }
        do throws(StorageError) {
            return (try PropertyListValue(byteForm: bytes, contentType: location.contentType), location.tier)
        } catch {
            throw Self.relabelled(error, tier: location.tier, key: key)
        }
    }

    /// Writes `bytes` to `target` as `location` describes: a typed byte form becomes the native value in a preference
    /// suite (a string moved back to defaults is a plist string again); anything else is put as bytes. The tier sees
    /// `descriptor` when there is one (a name allowed by ``/StrataCore/DataDescriptor/allowsSensitiveName``).
    package func store(
        _ bytes: Data, in target: any StorageBackend, at location: StorageLocation, as descriptor: DataDescriptor?
    ) throws {
        // The content type first: bytes put without one (most puts) need no cast of the backend.
        guard let contentType = location.contentType,
            contentType.hasPrefix(PropertyListValue.byteFormContentTypePrefix), let defaults = target as? DefaultsStore
        else {
            guard let descriptor else { return try target.put(bytes, for: location.key) }
            return try target.put(bytes, for: location.key, as: descriptor)
        }
        try StoragePaths.validateKey(location.key, for: .defaults)
        do {
            try defaults.set(
                PropertyListValue(byteForm: bytes, contentType: contentType), forKey: location.key,
                allowingSensitiveName: descriptor?.allowsSensitiveName ?? false)
        } catch let error as StorageError {
            throw error.attributed(tier: .defaults, key: location.key)
        }
    }

    /// The content type of what `backend` holds under `key`, for a move: what the catalog recorded, unless the
    /// backend knows better. A preference suite knows each value's type, which the typed API may have changed behind
    /// the catalog; for data it keeps a media type the catalog recorded (a file's), never a typed value's.
    func contentType(of key: String, in backend: any StorageBackend, catalogued: String?) -> String? {
        guard let defaults = backend as? DefaultsStore,
            let stored = defaults.object(forKey: key, includingRegistered: false)
        else { return catalogued }
        if let typed = stored.byteFormContentType { return typed }
        return catalogued.flatMap { $0.hasPrefix(PropertyListValue.byteFormContentTypePrefix) ? nil : $0 }
    }

    /// `error` about `key` in `tier` (the property-list coding names neither, or names defaults).
    static func relabelled(_ error: StorageError, tier: Tier?, key: String) -> StorageError {
        var copy = error
        if let tier { copy.tier = tier }
        copy.key = key
        return copy
    }
}
