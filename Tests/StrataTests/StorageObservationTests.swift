import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// `Storage.observe` and `Storage.changes(prefix:)`: every tier, every writer, moves as moves.
@Suite("Storage: observing changes")
struct StorageObservationTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-observe")
    }

    /// A put, a second put and a delete through `Storage`, in each tier: set, updated, removed, each naming the tier.
    @Test(arguments: Tier.allCases)
    func changesThroughStorageAreDeliveredInEveryTier(_ tier: Tier) async throws {
        let storage = try openStorage(root)
        let descriptor = try #require(descriptorForTier[tier])
        let log = ChangeLog(try storage.observe("k"))
        defer { log.cancel() }
        try storage.put(Data("one".utf8), for: "k", as: descriptor)
        #expect(try await log.wait(for: .set, of: "k").tier == tier)
        try storage.put(Data("two".utf8), for: "k", as: descriptor)
        #expect(try await log.wait(for: .updated, of: "k").tier == tier)
        try storage.delete("k")
        #expect(try await log.wait(for: .removed(from: tier), of: "k").location == nil)
    }

    /// Writes through a tier's own API (the backend's `put` and `delete`, which report to the catalog) are delivered
    /// too, a key the catalog did not know included.
    @Test(arguments: Tier.allCases)
    func changesThroughATiersOwnAPIAreDelivered(_ tier: Tier) async throws {
        let storage = try openStorage(root)
        let backend = try storage.backend(for: tier)
        let log = ChangeLog(try storage.changes())
        defer { log.cancel() }
        try backend.put(Data("one".utf8), for: "own")
        try backend.flush()
        #expect(try await log.wait(for: .set, of: "own").tier == tier)
        try backend.put(Data("two".utf8), for: "own")
        try backend.flush()
        try await log.wait(for: .updated, of: "own")
        try backend.delete("own")
        try backend.flush()
        try await log.wait(for: .removed(from: tier), of: "own")
    }

    /// A value that changes tier is reported as one move, by a put that routes it elsewhere and by `move`, and never
    /// as removed while a tier holds it.
    @Test func aMoveIsOneChange() async throws {
        let storage = try openStorage(root)
        let log = ChangeLog(try storage.changes(prefix: "m"))
        defer { log.cancel() }
        try storage.set("small", for: "m")
        try await log.wait(for: .set, of: "m")
        try storage.set(Data(repeating: 7, count: 100), for: "m", contentType: "application/pdf")
        #expect(try await log.wait(for: .moved(from: .defaults), of: "m").tier == .files)
        try storage.move("m", to: .records)
        #expect(try await log.wait(for: .moved(from: .files), of: "m").tier == .records)
        #expect(!log.changes.contains { if case .removed = $0.event { true } else { false } })
    }

    /// A prefix watches the keys that start with it, and no other.
    @Test func aPrefixWatchesItsKeysOnly() async throws {
        let storage = try openStorage(root)
        let log = ChangeLog(try storage.changes(prefix: "a/"))
        defer { log.cancel() }
        try storage.set("no", for: "b/1")
        try storage.set("no", for: "a")
        try storage.set("yes", for: "a/1")
        try await log.wait(for: .set, of: "a/1")
        try storage.set("yes", for: "a/2")
        try await log.wait(for: .set, of: "a/2")
        #expect(log.changes.allSatisfy { $0.key.hasPrefix("a/") })
    }

    /// Cancelling the task that iterates ends the observation: its thread stops, and the count of observers goes back
    /// to 0, so puts that stay in their tier cost the catalog nothing again.
    @Test func cancellingEndsTheObservation() async throws {
        let storage = try openStorage(root)
        let log = ChangeLog(try storage.observe("k"))
        #expect(storage.catalog.isObserved)
        try storage.set("one", for: "k")
        try await log.wait(for: .set, of: "k")
        log.cancel()
        try await log.waitForEnd()
        // The observation's task ends (and counts itself out) within one interval of the cancellation.
        // Counted in looks, not by the clock (see `ChangeLog.wait`).
        for _ in 0..<6_000 where storage.catalog.isObserved || storage.changeWatcher.isRunning {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!storage.catalog.isObserved)
        #expect(!storage.changeWatcher.isRunning, "the thread that looked for changes still runs")
        try storage.set("two", for: "k")
        try storage.backend(for: .defaults).flush()
        let size = try FileManager.default.attributesOfItem(atPath: root + "/catalog/log")[.size] as? Int
        try storage.set("three", for: "k")
        try storage.backend(for: .defaults).flush()
        #expect(try FileManager.default.attributesOfItem(atPath: root + "/catalog/log")[.size] as? Int == size)
    }

    /// The observation ends when its `Storage` goes away.
    @Test func theObservationEndsWithItsStorage() async throws {
        var storage: Storage? = try openStorage(root)
        let log = ChangeLog(try storage!.observe("k"))
        storage = nil
        try await log.waitForEnd()
        #expect(try !openStorage(root).catalog.isObserved)
    }

    /// Another process changes the store through `Storage`, through `storage.defaults` and through a tier's own
    /// `put`; every change is delivered here, the move as a move.
    @Test func changesOfAnotherProcessAreDelivered() async throws {
        let storage = try openStorage(root)
        let log = ChangeLog(try storage.changes())
        defer { log.cancel() }
        let child = try TestExecutables.url(named: "strata-test-child")
        var environment = ProcessInfo.processInfo.environment
        environment["STRATA_SECRETS_KEY"] = testSecretsKeyHex
        func step(_ arguments: String...) throws {
            let result = try ChildProcess.run(child, ["storage-step", root] + arguments, environment: environment)
            #expect(result.standardOutput.contains("ack"), "\(arguments): \(result.standardError)")
        }
        try step("set", "k", "one")
        #expect(try await log.wait(for: .set, of: "k").tier == .defaults)
        try step("set", "k", "two")
        try await log.wait(for: "the second value of k") { $0.filter { $0.key == "k" }.count == 2 }
        try step("defaults-set", "k", "three")
        try await log.wait(for: "the third value of k") { $0.filter { $0.key == "k" }.count == 3 }
        #expect(log.changes.filter { $0.key == "k" }.dropFirst().allSatisfy { $0.event == .updated })
        try step("tier-put", "secrets", "token", "s3cr3t")
        #expect(try await log.wait(for: .set, of: "token").tier == .secrets)
        try step("tier-put", "records", "row", "{}")
        #expect(try await log.wait(for: .set, of: "row").tier == .records)
        try step("tier-put", "records", "row", "{\"a\":1}")
        try await log.wait(for: .updated, of: "row")
        try step("move", "k", "files")
        #expect(try await log.wait(for: .moved(from: .defaults), of: "k").tier == .files)
        try step("delete", "k")
        try await log.wait(for: .removed(from: .files), of: "k")
        #expect(log.changes.filter { $0.key == "k" && $0.location == nil }.count == 1)
        // The `strata` tool, writing through the defaults tier.
        let strata = try TestExecutables.url(named: "strata")
        let set = try ChildProcess.run(strata, ["defaults", "set", "cli", "one", "--root", root])
        #expect(set.status == 0, "\(set.standardError)")
        #expect(try await log.wait(for: .set, of: "cli").tier == .defaults)
        let reset = try ChildProcess.run(strata, ["defaults", "set", "cli", "two", "--root", root])
        #expect(reset.status == 0, "\(reset.standardError)")
        try await log.wait(for: .updated, of: "cli")
    }

    /// A typed defaults observer told of a value that moved out of the suite says where it went, rather than handing
    /// over the key's default as if the value were gone; the value-only forms skip it.
    @Test func aTypedDefaultsObserverReportsAMoveOutOfTheSuite() async throws {
        let storage = try openStorage(root)
        let theme = DefaultsKey<String>("theme", default: "light")
        try storage.set("dark", for: "theme")
        let (changes, continuation) = AsyncStream.makeStream(of: DefaultsKeyChange<String>.self)
        let defaults = try #require(storage.backend(for: .defaults) as? DefaultsStore)
        let watching = defaults.observe(theme, options: []) { continuation.yield($0) }
        defer { watching.cancel() }
        var values = defaults.values(for: theme).makeAsyncIterator()
        try storage.move("theme", to: .records)
        // Observers are called on the thread that made the change, before `move` returns.
        continuation.finish()
        var delivered: [DefaultsKeyChange<String>] = []
        for await change in changes { delivered.append(change) }
        #expect(delivered == [DefaultsKeyChange(oldValue: "dark", newValue: "light", movedTo: .records)])
        // Back in the suite: the values stream's next value is the new one, not the default it never was.
        try storage.set("blue", for: "theme")
        #expect(await values.next() == "blue")
        // A removal is still a removal.
        let (removals, removed) = AsyncStream.makeStream(of: DefaultsKeyChange<String>.self)
        let watchingRemovals = defaults.observe(theme, options: []) { removed.yield($0) }
        defer { watchingRemovals.cancel() }
        try storage.delete("theme")
        removed.finish()
        var afterDelete: [DefaultsKeyChange<String>] = []
        for await change in removals { afterDelete.append(change) }
        #expect(afterDelete == [DefaultsKeyChange(oldValue: "blue", newValue: "light")])
    }
}
