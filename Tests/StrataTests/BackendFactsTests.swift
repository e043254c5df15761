import Foundation
import Strata
import StrataConformance
import StrataTestSupport
import Testing

/// Backends report their own facts (concurrency guarantee, durability, layout), and `Storage` takes them from
/// the active backend: a selection never states another backend's locking.
@Suite("Storage: backends report their own facts")
struct BackendFactsTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-facts")
    }

    /// The records tier's guarantee was the SQLite sentence whatever the backend: a custom records backend (or
    /// PostgreSQL) was reported as using "SQLite locking with a busy timeout".
    @Test func aSelectionReportsTheActiveBackendsFacts() throws {
        let storage = try openStorage(root)
        storage.registry.register(.records, name: "memory") { _ in InMemoryBackend(tier: .records) }
        let selection = storage.select(DataDescriptor(kind: .structured, estimatedSize: 10))
        #expect(selection.backend == "memory")
        #expect(selection.concurrencyGuarantee == InMemoryBackend(tier: .records).concurrencyGuarantee)
        #expect(!selection.concurrencyGuarantee.contains("SQLite"))
        #expect(selection.durability == .atomicOnly)
        let put = try storage.put(Data("{}".utf8), for: "r", as: DataDescriptor(kind: .structured, estimatedSize: 2))
        #expect(put.concurrencyGuarantee == selection.concurrencyGuarantee)
        // A built-in backend's facts are known without opening it: a locked keyring need not be unlocked.
        let locked = try Storage(root: directory.appending("locked"), secretsKey: nil)
        let credential = locked.select(DataDescriptor(kind: .credential, estimatedSize: 4))
        #expect(credential.backend == "sodium")
        #expect(try locked.registry.facts(for: .secrets) == SecretStore.facts(keyring: "default", paths: locked.paths))
        // A backend that must open to answer, and cannot, is reported as unknown rather than guessed.
        locked.registry.register(.files, name: "broken") { _ in
            throw StorageError(.connectionFailed, "no server")
        }
        let file = locked.select(DataDescriptor(kind: .file, estimatedSize: 4, contentType: "application/pdf"))
        #expect(file.backend == nil)
        #expect(file.concurrencyGuarantee.hasPrefix("unknown"), "\(file.concurrencyGuarantee)")
    }

    /// Deciding where a value goes never contacts a server: the PostgreSQL backend's facts are known from its
    /// connection string (its password hidden), even when nothing listens there.
    @Test func selectingForAServerDoesNotConnect() throws {
        let server = try TrapListener()
        let storage = try Storage(
            root: root, secretsKey: testSecretsKey,
            recordsURL: "postgresql://app:hunter2@127.0.0.1:\(server.port)/app?connect_timeout=30")
        let selection = storage.select(DataDescriptor(kind: .structured, estimatedSize: 10))
        #expect(!server.hasBeenContacted)
        #expect(selection.backend == "postgres")
        #expect(selection.concurrencyGuarantee.contains("SERIALIZABLE"))
        let layout = try storage.registry.facts(for: .records).layout
        #expect(layout.count == 1 && layout[0].kind == .server)
        #expect(!layout[0].location.contains("hunter2"), "\(layout)")
    }

    /// The check above can fail: a write routed to that server does connect (the handshake is answered by the
    /// kernel; no reply follows, so it fails on its connect timeout), and the listener sees it.
    @Test func writingToAServerIsSeenByTheTrapListener() throws {
        let server = try TrapListener()
        let storage = try Storage(
            root: root, secretsKey: testSecretsKey,
            recordsURL: "postgresql://app:hunter2@127.0.0.1:\(server.port)/app?connect_timeout=2")
        #expect(throws: StorageError.self) {
            try storage.put(Data("{}".utf8), for: "k", as: DataDescriptor(kind: .structured, estimatedSize: 10))
        }
        #expect(server.hasBeenContacted)
    }

    /// Every built-in backend reports where it keeps its data, and after a write there is what it says; the
    /// facts known without opening a backend (what `strata inspect` shows) are the ones it reports when open.
    @Test func everyBuiltInLayoutIsWhatIsOnDisk() throws {
        let storage = try openStorage(root)
        for (tier, descriptor) in descriptorForTier {
            try storage.put(Data("v".utf8), for: "k-\(tier)", as: descriptor)
        }
        try storage.backend(for: .defaults).flush()
        let unopened = try Storage.configuredBackendFacts(storage.configuration, paths: storage.paths)
        for tier in Tier.allCases {
            let facts = try storage.backend(for: tier).facts
            #expect(unopened.first { $0.tier == tier } == facts, "\(tier)")
            #expect(!facts.concurrencyGuarantee.isEmpty)
            for entry in facts.layout where !entry.location.hasSuffix("-wal") && !entry.location.hasSuffix("-shm") {
                #expect(entry.location.hasPrefix(storage.paths.root + "/\(tier.rawValue)"), "\(entry)")
                #expect(FileManager.default.fileExists(atPath: entry.location), "\(tier): \(entry)")
            }
        }
    }

    /// One durability type for every tier, reported as configured.
    @Test func durabilityIsReportedAsConfigured() throws {
        let paths = try StoragePaths(root: root)
        let files = try FileStore(paths: paths, configuration: FilesConfiguration(durability: .atomicOnly))
        #expect(files.durability == .atomicOnly)
        let records = try RecordStore(
            name: "main", paths: paths, configuration: RecordsConfiguration(durability: .atomicOnly))
        #expect(records.durability == .atomicOnly)
        #expect(try RecordStore(name: "other", paths: paths).durability == .durable)
        let defaults = try DefaultsStore(
            suite: "s", paths: paths, configuration: DefaultsConfiguration(durability: .coalesced(.milliseconds(50))))
        #expect(defaults.durability == .coalesced(.milliseconds(50)))
        #expect(Durability.coalesced(.milliseconds(50)).description.contains("50 ms"))
    }

    /// The conformance check: a backend that leaves the protocol's defaults in place fails it, with a message
    /// that says what to report; the built-in ones pass.
    @Test func theConformanceCheckAsksForFacts() async throws {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await BackendConformance.run("reports-facts") { SilentBackend() }
        }
        #expect(failure?.message.contains("concurrency guarantee") == true)
        try await BackendConformance.run("reports-facts") { InMemoryBackend(tier: .files) }
        let storage = try openStorage(root)
        for tier in Tier.allCases {
            try await BackendConformance.run("reports-facts") { try storage.backend(for: tier) }
        }
    }
}

/// A backend that states nothing about itself.
final class SilentBackend: StorageBackend {
    let tier = Tier.files
    let name = "silent"
    func put(_ value: Data, for key: String) throws {}
    func data(for key: String) throws -> Data? { nil }
    func delete(_ key: String) throws -> Bool { false }
    func contains(_ key: String) throws -> Bool { false }
    func keys() throws -> [String] { [] }
    func metadata(for key: String) throws -> StorageMetadata? { nil }
}
