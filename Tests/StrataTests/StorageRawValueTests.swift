import Foundation
import Strata
import StrataTestSupport
import Testing

/// A string-backed enum, as an app's theme setting.
enum AppTheme: String, Codable, Sendable {
    case system, dark, light
}

/// Raw-representable values through the facade: a small one is a preference stored as its raw value; and `nil`
/// removes a key, as it does through a `DefaultsKey<String?>`.
@Suite("Storage: raw values and nil")
struct StorageRawValueTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-raw-values") }

    @Test func aRawRepresentableValueIsAPreferenceStoredAsItsRawValue() throws {
        let storage = try openStorage(root)
        let selection = try storage.set(AppTheme.dark, for: "theme")
        #expect(selection?.tier == .defaults)
        #expect(selection?.ruleID == "preference-to-defaults")
        #expect(storage.defaults.object(forKey: "theme") == .string("dark"))
        #expect(try storage.value(String.self, for: "theme") == "dark")
        #expect(try storage.value(AppTheme.self, for: "theme") == .dark)
        #expect(storage.defaults[DefaultsKey<AppTheme>("theme", default: .system)] == .dark)
        #expect(try storage.location(of: "theme")?.contentType == "application/vnd.strata.string")
        // Moved to a bytes tier and back, it keeps reading as the enum.
        try storage.move("theme", to: .files)
        #expect(try storage.data(for: "theme") == Data("dark".utf8))
        #expect(try storage.value(AppTheme.self, for: "theme") == .dark)
        try storage.move("theme", to: .defaults)
        #expect(storage.defaults.object(forKey: "theme") == .string("dark"))
    }

    /// What an earlier version stored for `storage.set(AppTheme.dark, …)`: JSON in the records tier.
    @Test func theOldStructuredFormStillReads() throws {
        let storage = try openStorage(root)
        try storage.put(
            JSONEncoder().encode(AppTheme.light), for: "theme", as: DataDescriptor(kind: .structured, estimatedSize: 7))
        #expect(try storage.location(of: "theme")?.tier == .records)
        #expect(try storage.value(AppTheme.self, for: "theme") == .light)
        try storage.set(AppTheme.dark, for: "theme")
        #expect(try storage.location(of: "theme")?.tier == .defaults)
        #expect(try storage.value(AppTheme.self, for: "theme") == .dark)
    }

    @Test func aValueThatIsNoRawValueIsATypeMismatch() throws {
        let storage = try openStorage(root)
        try storage.set("purple", for: "theme")
        let error = try #require(throws: StorageError.self) { try storage.value(AppTheme.self, for: "theme") }
        #expect(error.code == .typeMismatch)
        #expect(error.tier == .defaults && error.key == "theme")
    }

    @Test(arguments: [
        DataDescriptor(kind: .preference, estimatedSize: 4), DataDescriptor(kind: .credential, estimatedSize: 4),
        DataDescriptor(kind: .structured, estimatedSize: 4), DataDescriptor(kind: .file, estimatedSize: 4),
    ])
    func settingNilRemovesTheKeyFromEveryTier(_ descriptor: DataDescriptor) throws {
        let storage = try openStorage(root)
        try storage.set("dark", for: "note", as: descriptor)
        #expect(try storage.contains("note"))
        let removed = try storage.set(String?.none, for: "note")
        #expect(removed == nil, "no selection: nothing was stored")
        #expect(try !storage.contains("note"))
        #expect(try storage.value(String.self, for: "note") == nil)
        #expect(try storage.location(of: "note") == nil)
        // Again, and for a key that never existed: nothing to remove is no error.
        try storage.set(String?.none, for: "note")
        try storage.set(AppTheme?.none, for: "never-set", as: descriptor)
        // A value in an optional is stored as the value itself.
        try storage.set(String?.some("light"), for: "note")
        #expect(storage.defaults.object(forKey: "note") == .string("light"))
    }

    /// Generic code whose value is an `Optional` at run time: the same rule.
    @Test func nilInGenericCodeRemovesToo() throws {
        let storage = try openStorage(root)
        func save<Value: Codable & Sendable>(_ value: Value, for key: String) throws {
            try storage.set(value, for: key)
        }
        try save(AppTheme.dark, for: "theme")
        #expect(try storage.value(AppTheme.self, for: "theme") == .dark)
        try save(AppTheme?.none, for: "theme")
        #expect(try !storage.contains("theme"))
    }
}
