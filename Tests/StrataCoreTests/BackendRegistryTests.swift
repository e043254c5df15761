import Foundation
import StrataCore
import Synchronization
import Testing

@Suite("BackendRegistry")
struct BackendRegistryTests {
    @Test func missingTierIsATypedError() throws {
        let registry = BackendRegistry()
        let error = #expect(throws: StorageError.self) { try registry.backend(for: .secrets) }
        #expect(error?.code == .noBackend)
        #expect(error?.tier == .secrets)
        #expect(error?.description.contains("no backend is registered for the secrets tier") == true)
    }

    @Test func registerLooksUpAndOpensOnce() throws {
        let registry = BackendRegistry()
        let opened = Counter()
        registry.register(.defaults, name: "memory") { _ in
            opened.increment()
            return InMemoryBackend(tier: .defaults)
        }
        let first = try registry.backend(for: .defaults)
        try first.put(Data("1".utf8), for: "a")
        let second = try registry.backend(for: .defaults)
        #expect(try second.data(for: "a") == Data("1".utf8))
        #expect(opened.value == 1)
        #expect(registry.registrations.map(\.description) == ["defaults/memory (active)"])
    }

    @Test func replacingANameDropsTheOpenedInstance() throws {
        let registry = BackendRegistry()
        registry.register(.files, name: "main") { _ in InMemoryBackend(tier: .files, name: "one") }
        #expect(try registry.backend(for: .files).name == "one")
        registry.register(.files, name: "main") { _ in InMemoryBackend(tier: .files, name: "two") }
        #expect(try registry.backend(for: .files).name == "two")
    }

    /// The open active instance is kept for lookups by tier alone: every change to the registrations (a new
    /// active name, a replaced or removed registration, an activation, a name opened by itself) must show at once.
    @Test func lookupByTierFollowsEveryChangeAfterTheActiveBackendOpened() throws {
        let registry = BackendRegistry()
        registry.register(.records, name: "a") { _ in InMemoryBackend(tier: .records, name: "a1") }
        #expect(try registry.backend(for: .records).name == "a1")
        registry.register(.records, name: "b", makeActive: false) { _ in InMemoryBackend(tier: .records, name: "b1") }
        #expect(try registry.backend(for: .records).name == "a1")
        #expect(try registry.backend(for: .records, named: "b").name == "b1")
        #expect(try registry.backend(for: .records).name == "a1")
        try registry.activate(.records, name: "b")
        #expect(try registry.backend(for: .records).name == "b1")
        registry.register(.records, name: "b") { _ in InMemoryBackend(tier: .records, name: "b2") }
        #expect(try registry.backend(for: .records).name == "b2")
        try registry.activate(.records, name: "a")
        #expect(try registry.backend(for: .records).name == "a1")
        registry.unregister(.records, name: "a")
        #expect(try registry.backend(for: .records).name == "b2")
        registry.unregister(.records, name: "b")
        #expect(throws: StorageError.self) { try registry.backend(for: .records) }
        // Other tiers are untouched by all this.
        registry.register(.files, name: "f") { _ in InMemoryBackend(tier: .files, name: "f1") }
        #expect(try registry.backend(for: .files).name == "f1")
        #expect(!registry.hasBackend(for: .records))
    }

    @Test func activateChoosesAmongNames() throws {
        let registry = BackendRegistry()
        registry.register(.records, name: "sqlite") { _ in InMemoryBackend(tier: .records, name: "sqlite") }
        registry.register(.records, name: "test", makeActive: false) { _ in
            InMemoryBackend(tier: .records, name: "test")
        }
        #expect(try registry.backend(for: .records).name == "sqlite")
        try registry.activate(.records, name: "test")
        #expect(try registry.backend(for: .records).name == "test")
        #expect(try registry.backend(for: .records, named: "sqlite").name == "sqlite")
        let error = #expect(throws: StorageError.self) { try registry.activate(.records, name: "postgres") }
        #expect(error?.code == .noBackend)
        #expect(error?.recovery?.contains("sqlite, test") == true)
        #expect(registry.unregister(.records, name: "test"))
        #expect(try registry.backend(for: .records).name == "sqlite")
        #expect(!registry.unregister(.records, name: "test"))
    }

    @Test func factoryFailureIsReportedAndRetried() throws {
        struct Boom: Error {}
        let registry = BackendRegistry()
        let attempts = Counter()
        registry.register(.secrets, name: "flaky") { _ in
            attempts.increment()
            if attempts.value == 1 { throw Boom() }
            return InMemoryBackend(tier: .secrets)
        }
        let error = #expect(throws: StorageError.self) { try registry.backend(for: .secrets) }
        #expect(error?.code == .backendUnavailable)
        #expect(error?.message.contains("flaky") == true)
        #expect(try registry.backend(for: .secrets).tier == .secrets)
    }

    @Test func concurrentFirstLookupsShareOneInstance() async throws {
        let registry = BackendRegistry()
        registry.register(.defaults, name: "memory") { _ in InMemoryBackend(tier: .defaults) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask { try registry.backend(for: .defaults).put(Data([UInt8(index)]), for: "k\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(try registry.backend(for: .defaults).keys().count == 16)
    }
}

final class Counter: Sendable {
    private let storage = Mutex(0)
    func increment() { storage.withLock { $0 += 1 } }
    var value: Int { storage.withLock { $0 } }
}
