// The app's one wrapper: allowed to use UserDefaults directly.
import Foundation

struct UserDefaultsStorage {
    private let defaults = UserDefaults.standard

    enum Key: String {
        case selectedTheme
    }

    var selectedTheme: String? {
        get { defaults.string(forKey: Key.selectedTheme.rawValue) }
        nonmutating set { defaults.set(newValue, forKey: Key.selectedTheme.rawValue) }
    }
}
