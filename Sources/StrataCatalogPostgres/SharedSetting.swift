package import StrataCore

/// A setting every machine of a shared store must give alike, recorded in the catalog by the first machine that
/// opens the store and checked against every other's (``PostgresCatalog/bind(_:to:)``): where the files are, and
/// the suite and keyring the catalog places preferences and credentials in.
package enum SharedSetting: Sendable, CaseIterable {
    /// `[files] url`: the S3 location of the files.
    case filesLocation
    /// `[defaults] suite`: the suite the store's preferences are in.
    case defaultsSuite
    /// `[secrets] keyring`: the keyring the store's credentials are in.
    case secretsKeyring

    /// The row of `strata_catalog_meta` that records it.
    var metaKey: String {
        switch self {
        case .filesLocation: "files"
        case .defaultsSuite: "defaults.suite"
        case .secretsKeyring: "secrets.keyring"
        }
    }

    /// The tier it is a setting of.
    var tier: Tier {
        switch self {
        case .filesLocation: .files
        case .defaultsSuite: .defaults
        case .secretsKeyring: .secrets
        }
    }

    /// Its name in its section of `strata.conf`.
    var attribute: String {
        switch self {
        case .filesLocation: "url"
        case .defaultsSuite: "suite"
        case .secretsKeyring: "keyring"
        }
    }

    /// What it names, in a sentence.
    var noun: String {
        switch self {
        case .filesLocation: "whose files are at"
        case .defaultsSuite: "whose preferences are in the suite"
        case .secretsKeyring: "whose credentials are in the keyring"
        }
    }
}
