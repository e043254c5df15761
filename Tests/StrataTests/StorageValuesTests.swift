import Foundation
import Strata
import StrataTestSupport
import Testing

/// A structured value: any `Codable` that is not a property-list type.
struct Profile: Codable, Sendable, Equatable {
    var name: String
    var age: Int
    var tags: [String]
}

/// One typed value of each kind the facade infers, with its documented byte form.
enum Sample: String, CaseIterable, Sendable {
    case string, integer, bool, real, date, data, array, structured

    /// Sets the sample through the facade.
    @discardableResult
    func set(in storage: Storage, key: String, as descriptor: DataDescriptor? = nil) throws -> Selection? {
        switch self {
        case .string: try storage.set("dark", for: key, as: descriptor)
        case .integer: try storage.set(42, for: key, as: descriptor)
        case .bool: try storage.set(true, for: key, as: descriptor)
        case .real: try storage.set(0.1, for: key, as: descriptor)
        case .date: try storage.set(Sample.someDate, for: key, as: descriptor)
        case .data: try storage.set(Data([0, 1, 0xFF]), for: key, as: descriptor)
        case .array: try storage.set(["a", "b"], for: key, as: descriptor)
        case .structured: try storage.set(Sample.profile, for: key, as: descriptor)
        }
    }

    /// Whether the facade reads the sample back as it was set.
    func readsBack(from storage: Storage, key: String) throws -> Bool {
        switch self {
        case .string: try storage.value(String.self, for: key) == "dark"
        case .integer: try storage.value(Int.self, for: key) == 42
        case .bool: try storage.value(Bool.self, for: key) == true
        case .real: try storage.value(Double.self, for: key) == 0.1
        case .date: try storage.value(Date.self, for: key) == Sample.someDate
        case .data: try storage.value(Data.self, for: key) == Data([0, 1, 0xFF])
        case .array: try storage.value([String].self, for: key) == ["a", "b"]
        case .structured: try storage.value(Profile.self, for: key) == Sample.profile
        }
    }

    static let someDate = Date(timeIntervalSinceReferenceDate: 812_345_678.123_456_7)
    static let profile = Profile(name: "Ada", age: 36, tags: ["math"])
}

@Suite("Storage: typed values")
struct StorageValuesTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-values") }

    @Test func aStringSetThroughTheFacadeIsAPlistStringForEveryAPI() async throws {
        let storage = try openStorage(root)
        let selection = try storage.set("dark", for: "selectedTheme")
        #expect(selection?.tier == .defaults)
        #expect(storage.defaults.object(forKey: "selectedTheme") == .string("dark"))
        #expect(storage.defaults[DefaultsKey("selectedTheme", default: "system")] == "dark")
        let own = try DefaultsStore(suite: "standard", paths: storage.paths)
        #expect(own[DefaultsKey("selectedTheme", default: "system")] == "dark")
        #expect(try storage.value(String.self, for: "selectedTheme") == "dark")
        #expect(try storage.data(for: "selectedTheme") == Data("dark".utf8))
        try storage.defaults.flush()
        let cli = try ChildProcess.run(
            try TestExecutables.url(named: "strata"), ["defaults", "get", "selectedTheme", "--root", root])
        #expect(cli.status == 0, "\(cli.standardError)")
        #expect(cli.standardOutput == "dark\n")
    }

    @Test func anIntSetThroughTheTypedDefaultsAPIReadsBackThroughTheFacade() throws {
        let storage = try openStorage(root)
        try storage.defaults.set(42, for: DefaultsKey("launchCount", default: 0))
        #expect(try storage.value(Int.self, for: "launchCount") == 42)
        #expect(try storage.data(for: "launchCount") == Data("42".utf8), "the byte form, not a bplist")
        #expect(try storage.location(of: "launchCount")?.contentType == "application/vnd.strata.integer")
    }

    /// The documented byte form of each type, as `data(for:)` returns it and as the other tiers store it.
    @Test(arguments: [
        (PropertyListValue.string("dark"), "dark", "application/vnd.strata.string"),
        (.integer(-42), "-42", "application/vnd.strata.integer"),
        (.bool(true), "true", "application/vnd.strata.bool"),
        (.bool(false), "false", "application/vnd.strata.bool"),
        (.real(0.1), "0.1", "application/vnd.strata.real"),
        (.real(1e-5), "1e-05", "application/vnd.strata.real"),
        (.date(Date(timeIntervalSince1970: 1_700_000_000)), "2023-11-14T22:13:20Z", "application/vnd.strata.date"),
        (.date(Date(timeIntervalSinceReferenceDate: 0.25)), "2001-01-01T00:00:00.25Z", "application/vnd.strata.date"),
        (.date(Date(timeIntervalSinceReferenceDate: -0.75)), "2000-12-31T23:59:59.25Z", "application/vnd.strata.date"),
        (.date(Date(timeIntervalSinceReferenceDate: -1e11)), "-100000000000.0", "application/vnd.strata.date"),
        (.date(Date(timeIntervalSinceReferenceDate: 3e11)), "300000000000.0", "application/vnd.strata.date"),
    ])
    func theByteFormOfEachType(_ value: PropertyListValue, _ text: String, _ contentType: String) throws {
        #expect(try value.byteForm() == Data(text.utf8))
        #expect(value.byteFormContentType == contentType)
        #expect(try PropertyListValue(byteForm: Data(text.utf8), contentType: contentType) == value)
    }

    @Test func dataIsItsOwnBytesAndCollectionsAreXMLPropertyLists() throws {
        #expect(try PropertyListValue.data(Data([0, 0xFF])).byteForm() == Data([0, 0xFF]))
        #expect(PropertyListValue.data(Data()).byteFormContentType == nil)
        let array = PropertyListValue.array([.string("a"), .date(Sample.someDate), .data(Data([1]))])
        let bytes = try array.byteForm()
        #expect(String(decoding: bytes, as: UTF8.self).contains("<plist version=\"1.0\">"))
        #expect(try PropertyListValue(byteForm: bytes, contentType: array.byteFormContentType).arrayValue?.count == 3)
    }

    @Test func datesRoundTripExactlyThroughTheirText() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let seconds = Double.random(in: -4e9...4e9, using: &generator)
            for value in [seconds, seconds.rounded(), seconds / 1e6, Double(bitPattern: generator.next())] {
                // Within the second before 2001, a fraction cannot be split off exactly (the one documented gap).
                guard value.isFinite, abs(value) < 1e11, value >= 0 || value <= -1 else { continue }
                let date = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: value))
                let back = try PropertyListValue(byteForm: date.byteForm(), contentType: date.byteFormContentType)
                #expect(back == date, "\(value)")
            }
        }
    }

    @Test func aBadByteFormIsCorruptNotAValue() throws {
        for (text, type) in [("x1", "integer"), ("maybe", "bool"), ("soon", "date"), ("1.2.3", "real")] {
            let error = try #require(throws: StorageError.self) {
                try PropertyListValue(byteForm: Data(text.utf8), contentType: "application/vnd.strata." + type)
            }
            #expect(error.code == .corrupt)
        }
        #expect(throws: StorageError.self) {
            try PropertyListValue(byteForm: Data([0xFF, 0xFE]), contentType: "application/vnd.strata.string")
        }
    }

    /// The descriptor is inferred from the type: property-list types are preferences, a `Secret` a credential, `Data`
    /// with a content type a file, any other `Codable` structured.
    @Test func theDescriptorIsInferredFromTheType() throws {
        let storage = try openStorage(root)
        for sample in [Sample.string, .integer, .bool, .real, .date, .data, .array] {
            #expect(try sample.set(in: storage, key: "inferred/\(sample)")?.ruleID == "preference-to-defaults")
        }
        #expect(try Sample.structured.set(in: storage, key: "inferred/structured")?.tier == .records)
        #expect(try storage.set(Secret("tok_live"), for: "inferred/secret").tier == .secrets)
        #expect(try storage.value(Secret.self, for: "inferred/secret") == Secret("tok_live"))
        let pdf = try storage.set(Data("%PDF-1.7".utf8), for: "inferred/report.pdf", contentType: "application/pdf")
        #expect(pdf.tier == .files)
        #expect(try storage.location(of: "inferred/report.pdf")?.contentType == "application/pdf")
        #expect(try storage.value(Data.self, for: "inferred/report.pdf") == Data("%PDF-1.7".utf8))
        // Overridden: a string that is a credential.
        let token = try storage.set(
            "tok_live", for: "api/token", as: DataDescriptor(kind: .credential, estimatedSize: 8))
        #expect(token?.tier == .secrets)
        #expect(try storage.value(String.self, for: "api/token") == "tok_live")
        #expect(try storage.value(Secret.self, for: "api/token") == Secret("tok_live"))
    }

    /// Every type, in every tier: set as a preference, then moved to each tier in turn, it reads back the same.
    @Test(arguments: Sample.allCases)
    func everyTypeReadsBackTheSameInEveryTier(_ sample: Sample) throws {
        let storage = try openStorage(root)
        let key = "moving/\(sample)"
        try sample.set(in: storage, key: key)
        #expect(try sample.readsBack(from: storage, key: key))
        for tier in [Tier.secrets, .files, .records, .defaults, .files, .defaults] {
            try storage.move(key, to: tier, allowingPlaintext: true)
            #expect(try tiersHolding(key, in: storage) == [tier])
            #expect(try sample.readsBack(from: storage, key: key), "in \(tier)")
        }
    }

    @Test func aStringPreferenceThatBecomesACredentialReadsBackAsTheSameString() throws {
        let storage = try openStorage(root)
        try storage.set("tok_live_8c1f", for: "session", as: DataDescriptor(kind: .preference, estimatedSize: 13))
        try storage.set("tok_live_8c1f", for: "session", as: DataDescriptor(kind: .credential, estimatedSize: 13))
        #expect(try tiersHolding("session", in: storage) == [.secrets])
        #expect(try storage.value(String.self, for: "session") == "tok_live_8c1f")
        try storage.move("session", to: .defaults, allowingPlaintext: true)
        #expect(storage.defaults.object(forKey: "session") == .string("tok_live_8c1f"), "a string again, not data")
    }

    /// A key written through the typed defaults API (the catalog does not know its type) moves with its type.
    @Test func aValueWrittenThroughTheTypedAPIMovesWithItsType() throws {
        let storage = try openStorage(root)
        let key = DefaultsKey("theme", default: "system")
        try storage.set(1, for: "theme")  // The catalog records an integer ...
        try storage.defaults.set("dark", for: key)  // ... which the typed API then replaces with a string.
        #expect(try storage.value(String.self, for: "theme") == "dark")
        try storage.move("theme", to: .files)
        #expect(try storage.value(String.self, for: "theme") == "dark")
        try storage.move("theme", to: .defaults)
        #expect(storage.defaults[key] == "dark")
        // And from a typed value to data behind the catalog: the move carries raw bytes, not a stale type.
        try storage.defaults.set(.data(Data([0xFF, 0])), forKey: "theme")
        try storage.move("theme", to: .secrets)
        #expect(try storage.value(Data.self, for: "theme") == Data([0xFF, 0]))
        try storage.move("theme", to: .defaults, allowingPlaintext: true)
        #expect(storage.defaults.object(forKey: "theme") == .data(Data([0xFF, 0])))
    }

    @Test func aTypeMismatchNamesTheStoredTypeInEveryTier() throws {
        let storage = try openStorage(root)
        try storage.set("dark", for: "selectedTheme")
        for tier in [Tier.defaults, .secrets, .files, .records] {
            if tier != .defaults { try storage.move("selectedTheme", to: tier, allowingPlaintext: true) }
            let error = try #require(throws: StorageError.self) { try storage.value(Int.self, for: "selectedTheme") }
            #expect(error.code == .typeMismatch)
            #expect(error.message.contains("string"))
            #expect(error.tier == tier && error.key == "selectedTheme")
        }
        try storage.put(Data("raw".utf8), for: "raw", as: DataDescriptor(kind: .preference, estimatedSize: 3))
        let raw = try #require(throws: StorageError.self) { try storage.value(String.self, for: "raw") }
        #expect(raw.code == .typeMismatch && raw.message.contains("data"))
        #expect(try storage.value(Int.self, for: "absent") == nil)
    }

    /// Writers alternate a key between a string and an integer in a bytes tier while readers read it typed: a reader
    /// gets the value or a type mismatch, never bytes read with the other write's type (`.corrupt`, or a wrong value).
    @Test(arguments: [Tier.records, .files, .defaults])
    func typedReadsNeverPairBytesWithAnotherWritesType(_ tier: Tier) async throws {
        let storage = try openStorage(root)
        let descriptor = DataDescriptor(
            kind: tier == .defaults ? .preference : tier == .files ? .file : .structured, estimatedSize: 8,
            contentType: tier == .files ? "application/pdf" : nil, isQueried: tier == .records)
        try storage.set("s-0", for: "flip", as: descriptor)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 1...150 {
                    if round % 2 == 0 {
                        try storage.set("s-\(round)", for: "flip", as: descriptor)
                    } else {
                        try storage.set(round, for: "flip", as: descriptor)
                    }
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<150 {
                        do {
                            if let text = try storage.value(String.self, for: "flip") {
                                #expect(text.hasPrefix("s-"), "a string read: \(text)")
                            }
                        } catch let error as StorageError {
                            #expect(error.code == .typeMismatch, "\(error)")
                        }
                        do {
                            if let number = try storage.value(Int.self, for: "flip") { #expect(number % 2 == 1) }
                        } catch let error as StorageError {
                            #expect(error.code == .typeMismatch, "\(error)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try tiersHolding("flip", in: storage) == [tier])
    }

    @Test func aStructuredValueIsJSONInTheRecordsTier() throws {
        let storage = try openStorage(root)
        #expect(try storage.set(Sample.profile, for: "profiles/ada")?.tier == .records)
        let stored = try #require(try storage.records.data(for: "profiles/ada"))
        let object = try JSONSerialization.jsonObject(with: stored) as? [String: Any]
        #expect(object?["name"] as? String == "Ada")
        #expect(try storage.value(Profile.self, for: "profiles/ada") == Sample.profile)
        #expect(throws: StorageError.self) { try storage.value(String.self, for: "profiles/ada") }
    }
}
