import Foundation
public import StrataCore

/// The contract test every ``/StrataCore/StorageBackend`` runs, ours or a third party's.
///
/// Each ``Check`` gets a fresh backend from the caller's factory. The suite does not depend on a test framework:
/// a check throws ``ConformanceFailure`` with a message that says what the backend did wrong. With Swift
/// Testing, one test per check:
///
/// ```swift
/// @Test(arguments: BackendConformance.checkIDs)
/// func conformance(_ id: String) async throws {
///     try await BackendConformance.run(id) { InMemoryBackend(tier: .defaults) }
/// }
/// ```
public enum BackendConformance {
    /// Tunes the suite to a backend's documented limits.
    public struct Options: Sendable {
        /// The size of the large-value check, in bytes. The default is 4 MiB.
        public var largeValueSize: Int
        /// How many keys the many-keys check writes. The default is 300.
        public var manyKeysCount: Int
        /// How many tasks the concurrency check runs at once. The default is 8.
        public var concurrentTasks: Int
        /// How many writes each of those tasks makes. The default is 25.
        public var writesPerTask: Int

        /// Creates options with the defaults described on each property.
        public init(
            largeValueSize: Int = 4 << 20, manyKeysCount: Int = 300, concurrentTasks: Int = 8, writesPerTask: Int = 25
        ) {
            self.largeValueSize = largeValueSize
            self.manyKeysCount = manyKeysCount
            self.concurrentTasks = concurrentTasks
            self.writesPerTask = writesPerTask
        }
    }

    /// One named check of the contract.
    public struct Check: Sendable, Identifiable, CustomStringConvertible {
        /// A stable id such as `round-trip`.
        public let id: String
        /// What the check proves.
        public let summary: String
        let body: @Sendable (any StorageBackend, Options) async throws -> Void

        public var description: String { "\(id): \(summary)" }
    }

    /// Every check, in the order they are documented.
    public static let checks: [Check] = [
        Check(id: "round-trip", summary: "a value put under a key reads back byte for byte", body: roundTrip),
        Check(id: "overwrite", summary: "a second put replaces the value and its metadata", body: overwrite),
        Check(id: "delete", summary: "delete removes the value, and reports whether there was one", body: delete),
        Check(
            id: "secure-delete", summary: "deleteSecurely removes the value, and reports whether there was one",
            body: secureDelete),
        Check(id: "missing-key", summary: "an absent key reads as nil, never as an error", body: missingKey),
        Check(id: "empty-value", summary: "an empty value is stored and differs from an absent one", body: emptyValue),
        Check(id: "binary-value", summary: "every byte value survives, NUL included", body: binaryValue),
        Check(id: "large-value", summary: "a large value round-trips intact", body: largeValue),
        Check(id: "many-keys", summary: "many keys are listed sorted and each reads back", body: manyKeys),
        Check(id: "nested-and-unicode-keys", summary: "path-like and non-ASCII keys round-trip", body: nestedKeys),
        Check(
            id: "exact-unicode-keys",
            summary: "canonically equivalent spellings (NFC and NFD) are two keys, each with its own value",
            body: exactUnicodeKeys),
        Check(
            id: "invalid-keys", summary: "hostile keys are refused with .invalidKey, and nothing is stored",
            body: invalidKeys),
        Check(
            id: "concurrent-use", summary: "many tasks writing and reading at once lose nothing and see no torn value",
            body: concurrentUse),
        Check(
            id: "reports-facts",
            summary: "the backend states its own concurrency guarantee and where it keeps its data, with no password",
            body: reportsFacts),
    ]

    /// The ids of every check, for parameterized tests.
    public static var checkIDs: [String] { checks.map(\.id) }

    /// Runs one check against a fresh backend.
    /// - Parameters:
    ///   - id: The check's id.
    ///   - options: Sizes tuned to the backend. The default is
    ///     ``Options/init(largeValueSize:manyKeysCount:concurrentTasks:writesPerTask:)``.
    ///   - makeBackend: Opens a fresh, empty backend.
    /// - Throws: ``ConformanceFailure`` when the backend breaks the contract, or what the backend throws.
    public static func run(
        _ id: String, options: Options = Options(), makeBackend: () throws -> any StorageBackend
    ) async throws {
        guard let check = checks.first(where: { $0.id == id }) else {
            throw ConformanceFailure(check: id, message: "there is no check with this id; known: \(checkIDs)")
        }
        let backend = try makeBackend()
        do {
            try await check.body(backend, options)
        } catch let failure as ConformanceFailure {
            throw failure
        } catch {
            throw ConformanceFailure(check: id, message: "the backend threw unexpectedly: \(error)")
        }
    }

    /// Runs every check, each on a fresh backend.
    /// - Throws: The first ``ConformanceFailure``.
    public static func runAll(options: Options = Options(), makeBackend: () throws -> any StorageBackend) async throws {
        for check in checks {
            try await run(check.id, options: options, makeBackend: makeBackend)
        }
    }
}
