import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataRecords

/// `changes()` delivers each commit once: this store's own at once and never again through the watcher (a key-value
/// put through the store's byte-level API included, which changes no collection), another process's as external.
@Suite("RecordStore: each commit observed once")
struct RecordObservationTests {
    @Test(arguments: engines) func ownCommitsArriveOnceAndOthersAsExternal(_ engine: RecordEngineKind) async throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store(configuration: RecordsConfiguration(observationIntervalMilliseconds: 20))
        let counters = try store.collection(Counter.self, named: "counters")
        let others = try store.collection(Counter.self, named: "others")
        let seen = Mutex<[RecordChange]>([])
        let stream = counters.changes()
        let collector = Task {
            for await change in stream { seen.withLock { $0.append(change) } }
        }
        defer { collector.cancel() }
        // Let the watcher start before this store commits.
        try await Task.sleep(for: .milliseconds(200))
        for value in 1...3 { try counters.upsert(Counter(id: "c\(value)", value: value)) }
        try others.upsert(Counter(id: "o", value: 1))
        for index in 0..<3 { try store.put(Data("kv \(index)".utf8), for: "kv/\(index)") }
        // Ten of the watcher's intervals and more: a commit of this store it took for another's would arrive now.
        try await Task.sleep(for: .milliseconds(400))
        let child = try TestExecutables.url(named: "strata-test-child")
        #expect(try ChildProcess.run(child, ["records-increment", fixture.path, "1"]).status == 0)
        for _ in 0..<2000 where !seen.withLock({ $0.contains { $0.isExternal } }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let changes = seen.withLock { $0 }
        let own = changes.filter { !$0.isExternal }
        #expect(own == Array(repeating: RecordChange(collection: "counters", isExternal: false), count: 3))
        let external = changes.filter(\.isExternal)
        #expect(external.count == 1, "\(changes)")
        #expect(external.first?.collection == (engine == .postgres ? "counters" : nil))
    }
}
