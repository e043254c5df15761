import Foundation
import StrataConformance
import StrataCore
import Testing

@Suite("StrataConformance")
struct ConformanceTests {
    @Test("the in-memory backend passes", arguments: BackendConformance.checkIDs)
    func inMemoryBackend(_ check: String) async throws {
        try await BackendConformance.run(check) { InMemoryBackend(tier: .defaults) }
    }

    /// A backend that forgets empty values: the suite must catch it, or it proves nothing.
    final class ForgetsEmptyValues: StorageBackend {
        let inner = InMemoryBackend(tier: .defaults)
        var tier: Tier { .defaults }
        var name: String { "broken" }
        func put(_ value: Data, for key: String) throws {
            if value.isEmpty { try inner.delete(key) } else { try inner.put(value, for: key) }
        }
        func data(for key: String) throws -> Data? { try inner.data(for: key) }
        func delete(_ key: String) throws -> Bool { try inner.delete(key) }
        func contains(_ key: String) throws -> Bool { try inner.contains(key) }
        func keys() throws -> [String] { try inner.keys() }
        func metadata(for key: String) throws -> StorageMetadata? { try inner.metadata(for: key) }
    }

    @Test func aBrokenBackendFails() async throws {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await BackendConformance.run("empty-value") { ForgetsEmptyValues() }
        }
        #expect(failure?.check == "empty-value")
        #expect(failure?.description.contains("read back as nil") == true)
    }

    @Test func unknownCheckIsReported() async throws {
        await #expect(throws: ConformanceFailure.self) {
            try await BackendConformance.run("no-such-check") { InMemoryBackend(tier: .files) }
        }
    }

    @Test func valueLimitIsEnforced() throws {
        let backend = InMemoryBackend(tier: .defaults, valueLimit: 10)
        let error = #expect(throws: StorageError.self) { try backend.put(Data(count: 11), for: "big") }
        #expect(error?.code == .tooLarge)
        #expect(try backend.data(for: "big") == nil)
    }
}
