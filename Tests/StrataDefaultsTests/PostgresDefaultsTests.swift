import Foundation
import StrataConformance
import StrataCore
import StrataDefaults
import StrataDefaultsPostgres
import StrataPostgres
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataPostgresClient

/// The defaults tier on PostgreSQL: the same values, limits and name guard as a suite file, shared by every
/// instance (every machine) on the schema, observed across them.
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "").isEmpty,
        "needs STRATA_POSTGRES_URL (Scripts/test.sh starts a server)"))
final class PostgresDefaultsTests {
    let postgres: PostgresConfiguration
    static let suites = Atomic<Int>(0)

    init() {
        let server = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
        postgres = PostgresConfiguration(
            connectionString: server, schema: "pd_" + String(UInt64.random(in: 0...UInt64.max), radix: 36))
    }

    deinit { _ = try? PostgresRecordEngine.dropStore(postgres) }

    func defaults(_ suite: String = "standard", limits: DefaultsLimits = DefaultsLimits()) throws -> PostgresDefaults {
        try PostgresDefaults(suite: suite, configuration: postgres, limits: limits)
    }

    @Test(arguments: BackendConformance.checkIDs)
    func conformance(_ check: String) async throws {
        try await BackendConformance.run(check, options: BackendConformance.Options(largeValueSize: 1 << 20)) {
            // A suite of its own per backend, in the test's schema.
            let suite = "c\(Self.suites.wrappingAdd(1, ordering: .relaxed).newValue)"
            return try defaults(suite, limits: DefaultsLimits(valueLimit: 4 << 20, suiteBudget: 64 << 20))
        }
    }

    /// Typed keys round-trip through the server between two instances (two machines), with their types: a value
    /// read as another type is a `type-mismatch`, never a silent default.
    @Test func typedValuesRoundTripBetweenInstances() throws {
        let (a, b) = (try defaults(), try defaults())
        struct Window: Codable, Sendable, Equatable { var width: Int, height: Int }
        try a.set(42, for: DefaultsKey("launches", default: 0))
        try a.set(true, for: DefaultsKey("onboarded", default: false))
        try a.set(["en", "fr"], for: DefaultsKey<[String]>("languages", default: []))
        try a.set(Window(width: 800, height: 600), for: DefaultsKey("window", default: Window(width: 0, height: 0)))
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        try a.set(date, for: DefaultsKey("seen", default: Date.distantPast))
        #expect(try b.value(for: DefaultsKey("launches", default: 0)) == 42)
        #expect(try b.value(for: DefaultsKey("onboarded", default: false)) == true)
        #expect(try b.value(for: DefaultsKey<[String]>("languages", default: [])) == ["en", "fr"])
        #expect(
            try b.value(for: DefaultsKey("window", default: Window(width: 0, height: 0)))
                == Window(width: 800, height: 600))
        #expect(try b.value(for: DefaultsKey("seen", default: Date.distantPast)) == date)
        #expect(try b.object(forKey: "launches") == .integer(42))
        let mismatch = #expect(throws: StorageError.self) { try b.value(for: DefaultsKey("launches", default: "")) }
        #expect(mismatch?.code == .typeMismatch)
        #expect(try b.allKeys() == ["languages", "launches", "onboarded", "seen", "window"])
        try b.set(Optional<String>.none, for: DefaultsKey<String?>("onboarded", default: nil))
        #expect(try a.object(forKey: "onboarded") == nil, "nil for an optional key removes it")
        #expect(try a.removeObject(forKey: "launches"))
        #expect(try !b.removeObject(forKey: "launches"))
        let other = #expect(throws: StorageError.self) {
            try a.set(1, for: DefaultsKey("x", default: 0, suite: "elsewhere"))
        }
        #expect(other?.code == .invalidArgument)
    }

    /// Suites are separate: the same key in two suites is two values.
    @Test func suitesAreSeparate() throws {
        let (one, two) = (try defaults("one"), try defaults("two"))
        try one.set(.string("a"), forKey: "k")
        try two.set(.string("b"), forKey: "k")
        #expect(try one.object(forKey: "k") == .string("a"))
        #expect(try two.object(forKey: "k") == .string("b"))
        try one.removeObject(forKey: "k")
        #expect(try two.allKeys() == ["k"])
    }

    /// The limits of a suite file, counted the same way: a value over the value limit, a suite over its budget
    /// (across instances: the budget is checked under the suite's lock on the server), a nesting too deep; a set
    /// that does not grow an entry is made even over the budget. Nothing refused is stored.
    @Test func theLimitsOfASuiteFileHoldAcrossInstances() throws {
        let limits = DefaultsLimits(valueLimit: 1_000, suiteBudget: 2_500)
        let (a, b) = (try defaults(limits: limits), try defaults(limits: limits))
        let tooLarge = #expect(throws: StorageError.self) {
            try a.set(.data(Data(count: 1_200)), forKey: "big")
        }
        #expect(tooLarge?.code == .tooLarge && tooLarge?.suggestedTier == .files)
        // The same refusal as a suite file's, word for word.
        let directory = try TemporaryDirectory(prefix: "strata-pd")
        var configuration = DefaultsConfiguration(durability: .durable)
        configuration.limits = limits
        let file = try DefaultsStore(suite: "standard", root: directory.path, configuration: configuration)
        let fileRefusal = #expect(throws: StorageError.self) { try file.set(.data(Data(count: 1_200)), forKey: "big") }
        #expect(fileRefusal?.message == tooLarge?.message)

        try a.set(.data(Data(count: 900)), forKey: "one")
        try b.set(.data(Data(count: 900)), forKey: "two")
        let over = #expect(throws: StorageError.self) { try a.set(.data(Data(count: 900)), forKey: "three") }
        #expect(over?.code == .tooLarge)
        #expect(over?.message.contains("budget of 2500") == true, "\(String(describing: over))")
        #expect(try b.object(forKey: "three") == nil)
        try b.set(.data(Data(count: 800)), forKey: "one")  // shrinks an entry: made
        var deep = PropertyListValue.string("x")
        for _ in 0..<PropertyListLimits.defaultMaximumDepth { deep = .array([deep]) }
        let nested = #expect(throws: StorageError.self) { try a.set(deep, forKey: "deep") }
        #expect(nested?.code == .invalidArgument)
    }

    /// Credential-looking names are refused as in a suite file, unless allowed by name or by the set.
    @Test func credentialLookingNamesAreRefusedUnlessAllowed() throws {
        let guarded = try PostgresDefaults(configuration: postgres, allowedSensitiveKeys: ["showPasswordHint"])
        let refused = #expect(throws: StorageError.self) { try guarded.set(.string("x"), forKey: "apiToken") }
        #expect(refused?.code == .sensitiveKey && refused?.suggestedTier == .secrets)
        #expect(try guarded.object(forKey: "apiToken") == nil)
        try guarded.set(.bool(true), forKey: "showPasswordHint")
        try guarded.set(.string("x"), forKey: "tokenizerMode", allowingSensitiveName: true)
        #expect(try guarded.allKeys() == ["showPasswordHint", "tokenizerMode"])
    }

    /// Another instance's set reaches this one's observer through the server (`isExternal`), this instance's own
    /// at once (not external); an observer of other keys hears nothing, and a cancelled one nothing more.
    @Test func observersHearOtherInstancesChanges() async throws {
        let (a, b) = (try defaults(), try defaults())
        let heard = Mutex<[DefaultsChange]>([])
        let observation = b.observe(keys: ["theme"]) { change in heard.withLock { $0.append(change) } }
        let unrelated = Mutex<Int>(0)
        let other = b.observe(keys: ["volume"]) { _ in unrelated.withLock { $0 += 1 } }
        try a.set(.string("dark"), forKey: "theme")  // at once: the first observer returns listening
        try await waitUntil { heard.withLock { $0.count } == 1 }
        #expect(heard.withLock { $0 } == [DefaultsChange(keys: ["theme"], isExternal: true)])
        try b.set(.string("light"), forKey: "theme")
        try await waitUntil { heard.withLock { $0.count } == 2 }
        #expect(heard.withLock { $0.last } == DefaultsChange(keys: ["theme"], isExternal: false))
        observation.cancel()
        try a.set(.string("blue"), forKey: "theme")
        try await Task.sleep(for: .milliseconds(500))
        #expect(heard.withLock { $0.count } == 2)
        #expect(unrelated.withLock { $0 } == 0)
        other.cancel()
    }

    /// Suites and keys are matched by their exact scalars, in the notifications too: a change of `caf\u{E9}` is not
    /// heard by an observer of `cafe\u{301}`, and a suite whose name starts with a combining mark is heard at all.
    @Test func notificationsMatchExactScalars() async throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        let (a, b) = (try defaults(nfc), try defaults(nfc))
        let other = try defaults(nfd)
        let heard = Mutex<[DefaultsChange]>([])
        let observation = b.observe(keys: [nfd, "k"]) { change in heard.withLock { $0.append(change) } }
        try other.set(.integer(1), forKey: "k")  // another suite, equal as a String
        try a.set(.integer(1), forKey: nfc)  // another key, equal as a String
        try a.set(.integer(2), forKey: nfd)
        try await waitUntil { heard.withLock { $0.count } >= 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(heard.withLock { $0 } == [DefaultsChange(keys: [nfd], isExternal: true)])
        observation.cancel()

        let marked = "\u{301}suite"
        let (c, d) = (try defaults(marked), try defaults(marked))
        let marks = Mutex<Int>(0)
        let markObservation = d.observe { _ in marks.withLock { $0 += 1 } }
        try c.set(.bool(true), forKey: "k")
        try await waitUntil { marks.withLock { $0 } == 1 }
        #expect(marks.withLock { $0 } == 1)
        markObservation.cancel()
    }

    /// The longest schema name there is (48 bytes) still names a channel PostgreSQL keeps whole.
    @Test func theLongestSchemaNameWorks() async throws {
        let server = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
        let long = PostgresConfiguration(
            connectionString: server,
            schema: "l" + String(repeating: "x", count: 43) + String(UInt16.random(in: 1000...9999)))
        defer { _ = try? PostgresRecordEngine.dropStore(long) }
        let (a, b) = (try PostgresDefaults(configuration: long), try PostgresDefaults(configuration: long))
        let heard = Mutex<Int>(0)
        let observation = b.observe { _ in heard.withLock { $0 += 1 } }
        try a.set(.string("x"), forKey: "k")
        try await waitUntil { heard.withLock { $0 } == 1 }
        #expect(heard.withLock { $0 } == 1)
        #expect(try b.object(forKey: "k") == .string("x"))
        observation.cancel()
    }

    /// A value the server holds that is not a property list is a typed error naming the key, not a crash or a
    /// silent `nil`; the other keys read on.
    @Test func aDamagedValueIsATypedError() throws {
        let a = try defaults()
        try a.set(.string("ok"), forKey: "fine")
        try a.set(.string("soon damaged"), forKey: "damaged")
        let connection = try PostgresConnection(postgres.client)
        defer { connection.close() }
        try connection.execute(
            "UPDATE \(postgres.quotedSchema).strata_defaults SET value = '\\x00ff'::bytea WHERE key = 'damaged'",
            operation: "test")
        let damaged = #expect(throws: StorageError.self) { try a.object(forKey: "damaged") }
        #expect(damaged?.code == .corrupt && damaged?.key == "damaged")
        #expect(damaged?.path?.contains("#" + postgres.schema + "/standard") == true)
        #expect(try a.object(forKey: "fine") == .string("ok"))
    }

    func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }
}
