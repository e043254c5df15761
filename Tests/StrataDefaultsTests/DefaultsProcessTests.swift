import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("DefaultsStore: several processes")
struct DefaultsProcessTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func fourProcessesIncrementingOneKeyEndAtExactlyOneThousand() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        _ = try fixture.store()  // Creates the folders before the children race.
        let children = try (0..<4).map { _ in
            try ChildProcess(child, ["defaults-increment", fixture.root, "shared", "counter", "250"])
        }
        for process in children {
            let result = process.wait()
            #expect(result.status == 0, "\(result.standardError)")
        }
        let store = try fixture.store("shared")
        #expect(store[DefaultsKey("counter", default: 0)] == 1000)
        #expect(store.recoveries.isEmpty)
    }

    @Test func writerKilledAtRandomNeverLosesAFlushedValue() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        var generator = SeededGenerator(seed: 0xDEF)
        var next = 0
        var acknowledged: [Int] = []
        let rounds = ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init).map { $0 / 4 } ?? 40
        for _ in 0..<rounds {
            let process = try ChildProcess(child, ["defaults-ack-loop", fixture.root, "killed", "\(next)"])
            try process.waitForLine { $0.hasPrefix("ack ") }
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.01, using: &generator))
            process.kill(SIGKILL)
            _ = process.wait()
            let acks = process.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
            acknowledged += acks
            next = (acks.max() ?? next) + 2
            let store = try fixture.store("killed")
            #expect(store.recoveries.isEmpty, "the suite file was unreadable after a kill: \(store.recoveries)")
            for index in acknowledged {
                #expect(
                    store.object(forKey: "key-\(index)") == .integer(Int64(index)), "lost acknowledged key-\(index)")
            }
        }
        #expect(acknowledged.count >= rounds)
    }

    @Test func anotherProcessesChangeIsObserved() async throws {
        let store = try fixture.store(watching: true)
        let seen = Mutex<[DefaultsChange]>([])
        let observation = store.observe(keys: ["greeting"]) { change in seen.withLock { $0.append(change) } }
        defer { observation.cancel() }
        let child = try TestExecutables.url(named: "strata-test-child")
        let result = try ChildProcess.run(
            child, ["defaults-set", fixture.root, "standard", "greeting", "hello", "immediate"])
        #expect(result.status == 0)
        for _ in 0..<500 where seen.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        let changes = seen.withLock { $0 }
        #expect(changes.first?.keys == ["greeting"])
        #expect(changes.first?.isExternal == true)
        #expect(store.object(forKey: "greeting") == .string("hello"), "the reader sees the change without reopening")
    }
}

@Suite("DefaultsStore: observation")
struct DefaultsObservationTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func localChangesAreObservedPerKeyAndPerSuite() throws {
        let store = try fixture.store()
        let suite = Mutex<[Set<String>]>([])
        let launches = Mutex<[Int]>([])
        let all = store.observe { change in suite.withLock { $0.append(change.keys) } }
        let one = store.observe(.launches) { value in launches.withLock { $0.append(value) } }
        try store.set(1, for: .launches)
        try store.set(true, for: .onboarded)
        try store.set(1, for: .launches)  // Unchanged: no notification.
        try store.update(.launches) { $0 + 1 }
        #expect(suite.withLock { $0 } == [["launchCount"], ["hasCompletedOnboarding"], ["launchCount"]])
        #expect(launches.withLock { $0 } == [1, 2])
        one.cancel()
        try store.set(5, for: .launches)
        #expect(launches.withLock { $0 } == [1, 2])
        _ = all
    }

    @Test func asyncStreamOfValues() async throws {
        let store = try fixture.store()
        let stream = store.values(for: .launches)
        let reader = Task { () -> [Int] in
            var received: [Int] = []
            for await value in stream {
                received.append(value)
                if received.count == 3 { break }
            }
            return received
        }
        try await Task.sleep(for: .milliseconds(20))
        for value in 1...3 { try store.set(value, for: .launches) }
        #expect(await reader.value == [1, 2, 3])
    }
}
