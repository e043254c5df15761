import Foundation
import StrataCore
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres
@testable import StrataRecords

/// A server that stops answering (`SIGSTOP` on every server process: connections stay open, nothing replies, and
/// the kernel still acknowledges TCP) fails calls within the call deadline, and serves again once it resumes.
extension PostgresServerLossTests {
    /// Runs `body`, expecting it to fail with `.timeout` or `.connectionFailed` while `server` is still out of
    /// service: the call gave up on its own deadline rather than waiting for the server to come back. (No
    /// wall-clock bound: a frozen server thaws by itself only after a minute or more, a stopped one never, and the
    /// suite's time limit catches a call that waits forever.)
    func expectFailureWhileOutOfService(
        _ what: String, on server: OwnServer, _ body: () throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> StorageError? {
        let error = #expect(throws: StorageError.self, "\(what)", sourceLocation: sourceLocation) { try body() }
        #expect(server.isOutOfService, "\(what) returned only once the server was back", sourceLocation: sourceLocation)
        #expect(
            error?.code == .timeout || error?.code == .connectionFailed, "\(what): \(error.map { "\($0)" } ?? "")",
            sourceLocation: sourceLocation)
        return error
    }

    @Test(.timeLimit(.minutes(5))) func aHungServerFailsCallsWithinTheDeadlineAndServesAgainWhenItResumes() async throws
    {
        let server = try OwnServer()
        var configuration = PostgresConfiguration(connectionString: server.url, schema: "hang")
        configuration.callTimeoutMilliseconds = 2_000
        configuration.connectTimeoutSeconds = 2
        let deadline = Duration.milliseconds(configuration.callTimeoutMilliseconds)
        let store = try RecordStore(engine: PostgresRecordEngine(configuration))
        let counters = try store.collection(Counter.self, named: "counters")
        try counters.insert(Counter(id: "a", value: 1))
        let stream = counters.changes()
        try await Task.sleep(for: .milliseconds(300))  // the listener is connected

        let frozen = ContinuousClock.now
        try server.run("freeze 120")
        do {
            defer { try? server.run("thaw") }  // whatever happens below, the server runs again
            // A statement on a pooled connection: the server never answers.
            let read = expectFailureWhileOutOfService("a read", on: server) { _ = try counters.get(id: "a") }
            #expect(read?.code == .timeout)
            #expect(read?.postgres?.elapsed.map { $0 >= 2 } == true)
            // A transaction; then, with the pool's connections discarded, new connections hang in the handshake.
            _ = expectFailureWhileOutOfService("a transaction", on: server) {
                try store.write { tx in try tx(counters).upsert(Counter(id: "b", value: 2)) }
            }
            let connect = expectFailureWhileOutOfService("a new connection", on: server) {
                _ = try PostgresRecordEngine(configuration)
            }
            #expect(connect?.operation == "connect")
            _ = expectFailureWhileOutOfService("a single upsert", on: server) {
                try counters.upsert(Counter(id: "c", value: 3))
            }
            // Long enough for the listener to notice (it checks after 5 s of silence).
            let listenerNoticed = PostgresListener.probeInterval + deadline + .seconds(1)
            let left = listenerNoticed - (ContinuousClock.now - frozen)
            if left > .zero { try await Task.sleep(for: left) }
        }
        // Running again (and seen so: the check above can fail): the pool reconnects, nothing acknowledged was lost.
        #expect(!server.isOutOfService)
        #expect(try counters.get(id: "a")?.value == 1)
        try counters.upsert(Counter(id: "d", value: 4))
        #expect(try counters.get(id: "d")?.value == 4)
        // The listener reconnected, and says it may have missed commits.
        let change = await Self.firstChange(in: stream) { $0.isExternal && $0.collection == nil }
        #expect(change != nil, "the listener found its hung connection and reconnected")
    }

    /// A COMMIT the server never answered has an unknown outcome: reported as such, never run again.
    @Test(.timeLimit(.minutes(5))) func aCommitThatTimesOutIsOfUnknownOutcome() async throws {
        let server = try OwnServer()
        let (store, counters) = try Self.countersWithShortDeadlines(on: server, schema: "hang")
        var runs = 0
        let error: StorageError?
        do {
            defer { try? server.run("thaw") }
            error = expectFailureWhileOutOfService("a commit", on: server) {
                try store.write { tx in
                    runs += 1
                    try tx(counters).upsert(Counter(id: "x", value: 1))
                    try server.run("freeze 60")  // the COMMIT that follows gets no answer
                }
            }
        }
        #expect(error?.code == .timeout)
        #expect(error?.operation == "commit")
        #expect(error?.uncertainCommit == true, "\(error.map { "\($0)" } ?? "")")
        #expect(runs == 1, "a commit of unknown outcome is never run again")
        // Running again; whether x is there is the unknown outcome, but the store answers.
        _ = try counters.get(id: "x")
    }
}
