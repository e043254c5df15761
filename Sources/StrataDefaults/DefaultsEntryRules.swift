package import StrataCore

/// What every engine of the defaults tier accepts, measured the same way: key names (not empty, not over the key
/// length, no credential-looking word unless allowed), a value's nesting and size under the value limit, and the
/// suite's size under its budget, each entry counted as its key and the estimate of its encoded value.
package enum DefaultsEntryRules {
    /// How to get past a `sensitive-key` refusal, naming the real API of every way in.
    package static let sensitiveNameRecovery =
        "Store it in the secrets tier; if it is not a credential, allow the name: "
        + "DataDescriptor(allowsSensitiveName: true) for Storage.put, `allow-sensitive-key = NAME` in the "
        + "store's strata.conf (DefaultsConfiguration.allowedSensitiveKeys), or DefaultsKey(allowsSensitiveName: "
        + "true) / set(_:forKey:allowingSensitiveName: true) on a DefaultsStore"

    /// Checks a key's name.
    /// - Parameters:
    ///   - allowingSensitiveName: Whether this set allows a credential-looking name.
    ///   - allowed: Names allowed although they look like credentials, by their exact scalars.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidKey` (empty, too long) or `.sensitiveKey` (with its remedy).
    package static func checkName(_ key: String, allowingSensitiveName: Bool, allowed: Set<ExactString>)
        throws(StorageError)
    {
        guard !key.isEmpty else {
            throw StorageError(.invalidKey, "the key is empty", tier: .defaults, key: key)
        }
        guard key.utf8.count <= StoragePaths.maximumKeyLength else {
            throw StorageError(
                .invalidKey, "the key is over \(StoragePaths.maximumKeyLength) bytes", tier: .defaults, key: key)
        }
        if !allowingSensitiveName, !allowed.contains(ExactString(key)),
            let word = SensitiveKeyDetector.sensitiveWord(in: key)
        {
            var error = StorageError(
                .sensitiveKey, "the key looks like a credential ('\(word)'), which is forbidden in defaults",
                tier: .defaults, key: key, recovery: sensitiveNameRecovery, suggestedTier: .secrets)
            error.remedy = .allowSensitiveName
            throw error
        }
    }

    /// What an entry adds to the suite's size. For a value that was read (within ``PropertyListLimits``).
    package static func entrySize(_ key: ExactString, _ value: PropertyListValue?) -> Int {
        guard let value else { return 0 }
        return entryOverhead(key) + value.encodedSizeEstimate
    }

    /// What an entry costs the suite beyond its value: the key and the entry's own bookkeeping.
    package static func entryOverhead(_ key: ExactString) -> Int { key.string.utf8.count + 7 }

    /// What a new entry adds to the suite's size, measured in bounded time whatever the value (a value built in
    /// memory may nest deeper than any walk should recurse, or share subtrees that expand beyond any budget),
    /// checked against `valueLimit`.
    /// - Returns: The entry's size; `0` for a removal.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for nesting deeper than
    ///   ``PropertyListLimits/defaultMaximumDepth`` minus one (the suite's dictionary is the first level);
    ///   `.tooLarge` for a value over `valueLimit`.
    package static func checkedEntrySize(_ key: ExactString, _ value: PropertyListValue?, valueLimit: Int)
        throws(StorageError) -> Int
    {
        guard let value else { return 0 }
        // Every value adds at least one byte to the estimate, so counting past the value limit is never needed.
        let footprint = value.footprint(upToNodes: valueLimit + 1)
        // The value sits one level below the suite's top dictionary, which must stay readable.
        let deepest = PropertyListLimits.defaultMaximumDepth - 1
        if footprint.height > deepest {
            throw StorageError(
                .invalidArgument, "the value nests deeper than \(deepest) levels, the most a suite can hold",
                tier: .defaults, key: key.string, recovery: "Flatten the value, or store it in the files tier",
                suggestedTier: .files)
        }
        let entry = footprint.isComplete ? PropertyListValue.saturatingSum(entryOverhead(key), footprint.size) : .max
        let valueSize = entry == .max ? .max : max(0, entry - entryOverhead(key) - 3)
        if valueSize > valueLimit {
            throw StorageError(
                .tooLarge,
                "a value of \(valueSize == .max ? "more than \(valueLimit)" : "\(valueSize)") bytes is over the defaults limit of \(valueLimit)",
                tier: .defaults, key: key.string,
                recovery: "Large values slow every launch; store it in the files tier",
                suggestedTier: .files)
        }
        return entry
    }

    /// The refusal of a change that would grow the suite to `size`, over `budget`.
    package static func overBudget(size: Int, budget: Int, key: String?) -> StorageError {
        StorageError(
            .tooLarge, "the suite would grow to \(size) bytes, over its budget of \(budget)",
            tier: .defaults, key: key,
            recovery: "Keep defaults small; store large data in the files or records tier",
            suggestedTier: .files)
    }
}
