import Foundation
import StrataDefaults

/// The rules `storage-lint` checks.
public enum LintRule: String, Sendable, Hashable, CaseIterable {
    /// `UserDefaults.standard` or `UserDefaults(suiteName:)` outside the one wrapper type.
    case directUserDefaults = "direct-userdefaults"
    /// A defaults key written as a string literal at the call.
    case stringLiteralKey = "string-literal-key"
    /// A credential-looking key stored as a preference.
    case credentialInDefaults = "credential-in-defaults"
    /// `bool(forKey:)` / `integer(forKey:)` for a key whose presence the code also tests: unset reads as false/0.
    case unsetReadsAsFalse = "unset-reads-as-false"
    /// A large literal or base64 data stored as a preference.
    case largeValueInDefaults = "large-value-in-defaults"
    /// A keychain item saved by deleting then adding it: a crash in between loses it.
    case deleteThenAdd = "delete-then-add"
}
