import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataDefaults

#if canImport(Glibc)
    import Glibc
#endif

/// Durable sets made at once in one process pay one write of the suite between them, not one each.
@Suite("DefaultsStore: durable sets made at once")
struct DefaultsSharedWriteTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// Durable sets made while another write of the suite waits share that write: each returns once its change is on
    /// the disk, and the suite is written once for all of them (here the lock is held by this test, as another process
    /// would, until every set is staged).
    @Test func concurrentDurableSetsShareOneWrite() throws {
        let store = try fixture.store(durability: .durable)
        try store.set(.integer(0), forKey: "first")
        let lock = open(fixture.suitePath() + ".lock", O_RDWR | O_CLOEXEC)
        try #require(lock >= 0)
        defer { close(lock) }
        try #require(flock(lock, LOCK_EX) == 0)
        let writes = try #require(store.changeCounter).value
        let setters = 8
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        // Threads of their own: a dispatch queue's pool runs only as many as there are cores while the others wait.
        for index in 0..<setters {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    try store.set(.integer(Int64(index)), forKey: "key.\(index)")
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        // Every set is staged (a read sees it) before the first write can take the lock.
        while failures.withLock({ $0.isEmpty }),
            (0..<setters).contains(where: { store.object(forKey: "key.\($0)") == nil })
        {
            sched_yield()
        }
        flock(lock, LOCK_UN)
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try #require(store.changeCounter).value == writes + 1)
        let file = try PropertyListFormat.decode(try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath())))
        #expect(file == .dictionary(store.dictionaryRepresentation()))
        #expect(store.dictionaryRepresentation().count == setters + 1)
    }
}
