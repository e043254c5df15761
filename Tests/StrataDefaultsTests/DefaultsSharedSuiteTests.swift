import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Synchronization
import Testing

/// Several `DefaultsStore` instances on one suite file in one process share one state: every write is seen by every
/// instance at once, not after the file watcher's next look (up to about 0.3 s).
@Suite("DefaultsStore: instances on one suite")
struct DefaultsSharedSuiteTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func aWriteThroughOneInstanceIsSeenByAnotherAtOnce() throws {
        let first = try fixture.store(watching: true)
        let second = try fixture.store(watching: true)
        try first.set("dark", for: DefaultsKey("theme", default: "system"))
        #expect(second.object(forKey: "theme") == .string("dark"))
        try second.set(.integer(3), forKey: "launches")
        #expect(first.object(forKey: "launches") == .integer(3))
        #expect(try first.removeObject(forKey: "theme"))
        #expect(second.object(forKey: "theme") == nil)
        #expect(first.allKeys == ["launches"] && second.allKeys == ["launches"])
    }

    @Test func instancesWithDifferentSpellingsOfTheRootShareTheSuite() throws {
        let first = try fixture.store()
        try FileManager.default.createSymbolicLink(
            atPath: fixture.directory.appending("alias"), withDestinationPath: fixture.root)
        let second = try DefaultsStore(
            suite: "standard", root: fixture.directory.appending("alias") + "/./",
            configuration: DefaultsConfiguration(watchesExternalChanges: false))
        try first.set(.string("on"), forKey: "mode")
        #expect(second.object(forKey: "mode") == .string("on"))
    }

    /// A store keeps its folder open, so a folder made after its root was deleted cannot take the old folder's
    /// inode, and with it the old suite's shared state.
    @Test func aNewFolderNeverJoinsTheStateOfADeletedOne() throws {
        let old = try fixture.store(durability: .coalesced(.seconds(30)))
        try old.set(.string("stale"), forKey: "from-the-deleted-root")
        for round in 0..<20 {
            try FileManager.default.removeItem(atPath: fixture.root)
            let fresh = try fixture.store()
            #expect(fresh.object(forKey: "from-the-deleted-root") == nil, "round \(round)")
        }
        _ = old
    }

    /// Opening a store reads the file even when another store on the suite is open, so it starts from what another
    /// process wrote last, not from the open store's older look.
    @Test func openingReadsWhatAnotherProcessWroteSinceTheOtherStoreLooked() throws {
        let first = try fixture.store()
        let child = try TestExecutables.url(named: "strata-test-child")
        for round in 0..<5 {
            let wrote = try ChildProcess.run(
                child, ["defaults-set", fixture.root, "standard", "round", "r\(round)", "immediate"])
            #expect(wrote.status == 0, "\(wrote.standardError)")
            #expect(try fixture.store().object(forKey: "round") == .string("r\(round)"))
        }
        _ = first
    }

    @Test func otherSuitesAndOtherRootsStaySeparate() throws {
        let standard = try fixture.store()
        let other = try fixture.store("other")
        let elsewhere = try DefaultsStore(
            suite: "standard", root: fixture.directory.appending("second-root"),
            configuration: DefaultsConfiguration(watchesExternalChanges: false))
        try standard.set(.string("x"), forKey: "only-here")
        #expect(other.object(forKey: "only-here") == nil)
        #expect(elsewhere.object(forKey: "only-here") == nil)
    }

    @Test func observersOfOneInstanceHearWritesThroughAnother() throws {
        let first = try fixture.store()
        let second = try fixture.store()
        let heard = Mutex<[Set<String>]>([])
        let observation = first.observe { change in heard.withLock { $0.append(change.keys) } }
        defer { observation.cancel() }
        try second.set(.bool(true), forKey: "onboarded")
        #expect(heard.withLock { $0 } == [["onboarded"]])
    }

    @Test func anInstanceThatGoesAwayTakesItsObserversAndKeepsTheOthersWrites() throws {
        let survivor = try fixture.store(durability: .coalesced(.seconds(30)))
        let heard = Mutex(0)
        var departing: DefaultsStore? = try fixture.store(durability: .coalesced(.seconds(30)))
        let observation = departing!.observe { _ in heard.withLock { $0 += 1 } }
        try departing!.set(.integer(1), forKey: "written-by-departing")
        #expect(heard.withLock { $0 } == 1)
        departing = nil
        try survivor.set(.integer(2), forKey: "after")
        #expect(heard.withLock { $0 } == 1, "the departed instance's observer is not called")
        #expect(survivor.object(forKey: "written-by-departing") == .integer(1))
        _ = observation
    }

    @Test func closingOneInstanceLeavesTheOtherOpen() throws {
        let first = try fixture.store()
        let second = try fixture.store()
        try first.set(.integer(1), forKey: "a")
        try first.close()
        #expect(throws: StorageError.self) { try first.set(.integer(2), forKey: "a") }
        try second.set(.integer(3), forKey: "a")
        #expect(second.object(forKey: "a") == .integer(3))
    }

    @Test func eachInstanceKeepsItsOwnAllowedSensitiveNames() throws {
        var allowing = DefaultsConfiguration(watchesExternalChanges: false)
        allowing.allowedSensitiveKeys = ["showPasswordHint"]
        let lenient = try DefaultsStore(suite: "standard", root: fixture.root, configuration: allowing)
        let strict = try fixture.store()
        try lenient.set(.string("yes"), forKey: "showPasswordHint")
        #expect(strict.object(forKey: "showPasswordHint") == .string("yes"))
        #expect(throws: StorageError.self) { try strict.set(.string("no"), forKey: "showPasswordHint") }
    }

    @Test func anotherProcessStillSeesTheWritesAndTheInstancesSeeItsWrites() async throws {
        let first = try fixture.store(durability: .coalesced(.seconds(30)), watching: true)
        let second = try fixture.store(durability: .coalesced(.seconds(30)), watching: true)
        try first.set(.string("from-first"), forKey: "greeting")
        try second.flush()  // The shared pending write reaches the file through either instance.
        let child = try TestExecutables.url(named: "strata-test-child")
        let read = try ChildProcess.run(child, ["defaults-get", fixture.root, "standard", "greeting"])
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardOutput.contains("value from-first"))

        let wrote = try ChildProcess.run(
            child, ["defaults-set", fixture.root, "standard", "reply", "from-child", "immediate"])
        #expect(wrote.status == 0, "\(wrote.standardError)")
        try first.refresh()
        #expect(second.object(forKey: "reply") == .string("from-child"))
        #expect(second.object(forKey: "greeting") == .string("from-first"))
    }
}

@Suite("DefaultsStore: registered defaults per instance")
struct DefaultsRegisteredPerInstanceTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func registeredDefaultsStayWithTheStoreThatRegisteredThem() throws {
        let first = try fixture.store()
        let second = try fixture.store()
        try first.register(7, for: DefaultsKey("launchCount", default: 0))
        #expect(first.object(forKey: "launchCount") == .integer(7))
        #expect(second.object(forKey: "launchCount") == nil)
        try second.set(.integer(9), forKey: "launchCount")
        #expect(first.object(forKey: "launchCount") == .integer(9), "a set value is above every store's layer")
    }
}

@Suite("DefaultsStore: instances on one suite, from many threads")
struct DefaultsSharedSuiteThreadTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func incrementsThroughTwoInstancesFromManyThreadsAllCount() async throws {
        let stores = [try fixture.store(), try fixture.store()]
        let counter = DefaultsKey("counter", default: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    for _ in 0..<50 { try stores[index % 2].update(counter) { $0 + 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(stores[0][counter] == 400 && stores[1][counter] == 400)
        #expect(try fixture.store()[counter] == 400)
    }
}
