import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// A server that crashes or stops answering while a transaction's writes are in the pipeline (sent, not yet
/// answered): the same typed errors as outside a pipeline, within the call deadline, and nothing committed.
extension PostgresServerLossTests {
    /// A store on `server` whose calls and connections wait at most 2 s, and its `counters` collection.
    static func countersWithShortDeadlines(on server: OwnServer, schema: String) throws
        -> (RecordStore, RecordCollection<Counter>)
    {
        var configuration = PostgresConfiguration(connectionString: server.url, schema: schema)
        configuration.callTimeoutMilliseconds = 2_000
        configuration.connectTimeoutSeconds = 2
        let store = try RecordStore(engine: PostgresRecordEngine(configuration))
        return (store, try store.collection(Counter.self, named: "counters"))
    }

    @Test(.timeLimit(.minutes(5))) func aServerCrashMidPipelineIsTypedAndCommitsNothing() throws {
        let server = try OwnServer()
        let (store, counters) = try Self.countersWithShortDeadlines(on: server, schema: "loss")
        try counters.insert(contentsOf: (0..<10).map { Counter(id: "c\($0)", value: $0) })
        var runs = 0
        let error = expectFailureWhileOutOfService("a transaction whose server crashed", on: server) {
            try store.write { tx in
                runs += 1
                for index in 0..<20_000 {
                    try tx(counters).insert(Counter(id: "new\(index)", value: index))
                    if index == 5_000 && runs == 1 { try server.run("crash") }
                }
            }
        }
        #expect(error?.code == .connectionFailed, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.uncertainCommit == false, "the COMMIT was never sent")
        try server.run("resume")
        #expect(try counters.count() == 10, "nothing of the transaction was committed")
    }

    @Test(.timeLimit(.minutes(5))) func aServerThatStopsAnsweringMidPipelineTimesOutAndCommitsNothing() throws {
        let server = try OwnServer()
        let (store, counters) = try Self.countersWithShortDeadlines(on: server, schema: "hang")
        try counters.insert(Counter(id: "a", value: 1))
        var runs = 0
        let error: StorageError?
        do {
            defer { try? server.run("thaw") }
            error = expectFailureWhileOutOfService("a transaction whose server froze", on: server) {
                try store.write { tx in
                    runs += 1
                    for index in 0..<50_000 {
                        try tx(counters).insert(Counter(id: "new\(index)", value: index))
                        if index == 5_000 { try server.run("freeze 60") }
                    }
                }
            }
        }
        #expect(error?.code == .timeout, "\(error.map { "\($0)" } ?? "")")
        #expect(runs == 1)
        #expect(try counters.count() == 1, "nothing of the transaction was committed")
        try counters.insert(contentsOf: [Counter(id: "b", value: 2)])
        #expect(try counters.count() == 2)
    }
}
