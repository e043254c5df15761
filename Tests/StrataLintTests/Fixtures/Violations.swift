// One violation of each storage-lint rule, at known lines. Not compiled: read by StrataLintTests.
import Foundation
import Security

final class Settings {
    let defaults = UserDefaults.standard  // line 6: direct-userdefaults

    func save() {
        defaults.set(true, forKey: "hasSeenIntro")  // line 9: string-literal-key
        defaults.set(token, forKey: Keys.authToken.rawValue)  // line 10: credential-in-defaults
        defaults.set(image.base64EncodedString(), forKey: Keys.avatar.rawValue)  // line 11: large-value-in-defaults
    }

    func isFirstLaunch() -> Bool {
        let launched = defaults.bool(forKey: Keys.launched.rawValue)  // line 15: unset-reads-as-false
        if defaults.object(forKey: Keys.launched.rawValue) == nil { return true }
        return !launched
    }

    func saveToKeychain(_ data: Data, account: String) {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account]
        SecItemDelete(query as CFDictionary)  // line 22: delete-then-add
        var add = query
        add[kSecValueData as String] = data
        SecItemAdd(add as CFDictionary, nil)
    }
}
