import Foundation
import StrataCatalog
import StrataCore
import StrataPostgres
import StrataPostgresClient
import Synchronization
import Testing

@testable import StrataCatalogPostgres

/// The PostgreSQL catalog's key locks where they differ from the file catalog's: they are a server's session locks,
/// so a lock wait can give up, a session can end under its holder, and each holder (or waiter) keeps a connection
/// for as long as it holds the key.
@Suite(
    "PostgreSQL catalog locks",
    .enabled(if: CatalogEngineKind.available.contains(.postgres), "STRATA_POSTGRES_URL names no server"))
struct PostgresCatalogLockTests {
    /// A catalog instance (another machine) on `store`'s schema with its own timeouts.
    func open(_ store: CatalogEngineLocation, lockTimeout: Int = 10_000, callTimeout: Int = 30_000) throws
        -> PostgresCatalog
    {
        var configuration = try #require(store.postgres)
        configuration.lockTimeoutMilliseconds = lockTimeout
        configuration.callTimeoutMilliseconds = callTimeout
        return try PostgresCatalog(configuration)
    }

    /// A wait for a key's lock that gives up (the lock timeout: another machine holds the key longer) must give back
    /// the store's lock the same statement took shared; kept on a pooled connection, it would block every capture on
    /// every machine for as long as that connection lives. The error names the key and says who holds it.
    @Test func aKeyLockWaitThatGivesUpLeavesNoLockHeld() throws {
        let store = try CatalogEngineLocation(.postgres)
        let first = try open(store, lockTimeout: 300)
        let second = try open(store, lockTimeout: 300)
        try first.withKeyLock("k") {
            let error = try #require(throws: StorageError.self) { try second.withKeyLock("k") {} }
            #expect(error.code == .lockTimeout)
            #expect(error.key == "k")
            #expect(!error.message.contains("rows") && !(error.recovery ?? "").contains("rows"), "\(error)")
        }
        // Nothing holds any key now: every key's lock is free on any machine.
        #expect(throws: Never.self) { try first.withEveryKeyLock {} }
    }

    /// A holder whose session the server ends (a restart, a network cut, an administrator) loses the key's lock at
    /// once, while its body goes on, and another machine may take the key. From then on the holder records nothing:
    /// each of its catalog calls, the confirmation it asks before removing a copy, and the end of its lock's scope
    /// fail with `.lockLost` naming the key. Once its body is over, the catalog works again on new sessions.
    @Test func aHolderWhoseSessionEndsRecordsNothingMore() throws {
        let store = try CatalogEngineLocation(.postgres)
        let first = try open(store)
        let second = try open(store)
        let entry = StorageLocation(
            key: "k", tier: .records, backend: "postgres", ruleID: "test", kind: .structured, contentType: nil,
            size: 1, modified: Date())
        var errors: [StorageError] = []
        func attempt(_ body: () throws -> Void) {
            do {
                try body()
            } catch let error as StorageError {
                errors.append(error)
            } catch {
                Issue.record(error)
            }
        }
        attempt {
            try first.withKeyLock("k") {
                try first.confirmHeld("k")
                try endSession(of: first, in: store)
                #expect(try second.withKeyLockIfFree("k") { true } == true, "the ended session still held the key")
                attempt { try first.confirmHeld("k") }
                attempt { try first.record([.set(entry)], durable: true) }
                attempt { _ = try first.location(of: "k") }
            }
        }
        #expect(errors.count == 4)
        for error in errors { #expect(error.code == .lockLost && error.key == "k", "\(error)") }
        #expect(try second.location(of: "k") == nil)
        try first.withKeyLock("k") { try first.record([.set(entry)], durable: true) }
        #expect(try second.location(of: "k")?.tier == .records)
    }

    /// A body that makes no catalog call after its session ended (a write through a tier's own API: the tier write
    /// is its last step) returns normally, but its lock may have been another machine's meanwhile: every kind of
    /// lock scope then fails with `.lockLost` as it ends, so the write is never reported done.
    @Test(arguments: ["key", "key for a change", "key if free", "keys", "every key"])
    func aScopeWhoseSessionEndedFailsAsItEnds(_ scope: String) throws {
        let store = try CatalogEngineLocation(.postgres)
        let catalog = try open(store)
        let body = { try endSession(of: catalog, in: store) }
        let error = try #require(throws: StorageError.self) {
            switch scope {
            case "key": try catalog.withKeyLock("k", body)
            case "key for a change": try catalog.withKeyLockForChange("k") { _ in try body() }
            case "key if free": _ = try catalog.withKeyLockIfFree("k", body)
            case "keys": try catalog.withKeyLocks(["k", "l"], body)
            default: try catalog.withEveryKeyLock(body)
            }
        }
        #expect(error.code == .lockLost, "\(error)")
        #expect(throws: Never.self) { try catalog.withKeyLock("k") {} }
    }

    /// A server that ends idle sessions (`idle_session_timeout`, here 300 ms from the connection string) must not
    /// end one that holds a key's lock while its holder works elsewhere (a long write to S3): the lock sessions
    /// turn the timeout off for themselves.
    @Test func aLockHeldLongerThanTheServersIdleTimeoutStaysHeld() throws {
        let store = try CatalogEngineLocation(.postgres)
        var configuration = try #require(store.postgres)
        configuration.connectionString +=
            (configuration.connectionString.contains("?") ? "&" : "?") + "options=-c%20idle_session_timeout%3D300"
        let catalog = try PostgresCatalog(configuration)
        try catalog.withKeyLock("k") {
            usleep(900_000)
            try catalog.confirmHeld("k")
        }
    }

    /// Ends the server session of the key locks the calling thread holds through `catalog`, from another
    /// connection, and waits until it is gone.
    func endSession(of catalog: PostgresCatalog, in store: CatalogEngineLocation) throws {
        let pid = try #require(catalog.sessions.current()).serverProcessID
        _ = try open(store).pool.with {
            try $0.query("SELECT pg_terminate_backend($1::int4, 5000)", [.text(String(pid))], operation: "test")
        }
    }

    /// Every thread that holds a key's lock keeps a connection for as long as its body runs: as many holders as the
    /// pool has connections (long puts or moves) must not starve the process's other catalog calls (they have a pool
    /// of their own), as the file catalog's reads never wait for a lock.
    @Test func lockHoldersDoNotStarveReadsOfOtherKeys() throws {
        let store = try CatalogEngineLocation(.postgres)
        let catalog = try open(store, callTimeout: 2_000)
        // Keys of distinct stripes, so that their holders run at once in this process.
        var keys: [String] = []
        var stripes = Set<Int>()
        var index = 0
        while keys.count < catalog.configuration.poolSize {
            if stripes.insert(CatalogLocks.stripe(of: "held-\(index)")).inserted { keys.append("held-\(index)") }
            index += 1
        }
        let holding = Atomic<Int>(0)
        let release = Atomic<Bool>(false)
        let threads = keys.map { key in
            Thread {
                try? catalog.withKeyLock(key) {
                    holding.add(1, ordering: .sequentiallyConsistent)
                    while !release.load(ordering: .sequentiallyConsistent) { usleep(1000) }
                }
            }
        }
        threads.forEach { $0.start() }
        defer { release.store(true, ordering: .sequentiallyConsistent) }
        let deadline = Date() + 20
        while holding.load(ordering: .sequentiallyConsistent) < keys.count, Date() < deadline { usleep(1000) }
        try #require(holding.load(ordering: .sequentiallyConsistent) == keys.count)
        #expect(throws: Never.self) { try catalog.location(of: "unrelated") }
    }
}
