import StrataCore

/// The key validator as it was before the one-pass rewrite (StoragePaths.swift until issue 18), kept verbatim as
/// the oracle of `StoragePathsDifferentialTests`: it splits the key into `String`s one scalar at a time.
enum LegacyKeyValidator {
    static func validateKey(_ key: String) throws(StorageError) {
        func refuse(_ why: String) -> StorageError {
            StorageError(
                .invalidKey, why, key: key,
                recovery:
                    "Use a relative path of non-empty components, without '..', '\\', control characters or "
                    + "direction overrides")
        }
        if key.isEmpty { throw refuse("the key is empty") }
        if key.utf8.count > StoragePaths.maximumKeyLength {
            throw refuse("the key is \(key.utf8.count) bytes long; the limit is \(StoragePaths.maximumKeyLength)")
        }
        if key.utf8.first == UInt8(ascii: "/") { throw refuse("the key is an absolute path") }
        for scalar in key.unicodeScalars {
            if scalar == "\0" { throw refuse("the key contains a NUL byte") }
            if scalar.isControlOrDirectionality {
                throw refuse(
                    "the key contains a control character or direction override (U+"
                        + String(scalar.value, radix: 16, uppercase: true) + ")")
            }
            if scalar == "\\" { throw refuse("the key contains a backslash, a path separator on other systems") }
        }
        for component in components(of: key) {
            if component.isEmpty { throw refuse("the key has an empty component ('//' or a trailing '/')") }
            if component == "." || component == ".." {
                throw refuse("the key has a '\(component)' component, which could lead out of the store")
            }
            if component.utf8.count > StoragePaths.maximumComponentLength {
                throw refuse(
                    "a component of the key is \(component.utf8.count) bytes long; the limit is "
                        + "\(StoragePaths.maximumComponentLength)")
            }
            if component.utf8.starts(with: StoragePaths.reservedPrefix.utf8) {
                throw refuse(
                    "names starting with '\(StoragePaths.reservedPrefix)' are reserved for Strata's own files")
            }
        }
    }

    /// The components as the old validator split them: on scalars, keeping empty ones.
    static func components(of path: String) -> [String] {
        path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map {
            String(String.UnicodeScalarView($0))
        }
    }
}
