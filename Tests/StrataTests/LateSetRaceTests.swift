import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

/// A preference set through the defaults tier's own API is staged at once when the catalog places its key in
/// defaults, and written later. A `Storage` move of the key on another thread of the same process must never undo
/// such a set once it returned (the move carrying the value from before it), nor let it land in the suite after the
/// key has left defaults (a copy in two tiers). The same holds while the store is observed, when the tier's sets are
/// recorded in the catalog as they are written, and the observer never hears of the key as removed.
@Suite("Storage: a tier's coalesced set beside this process's moves")
struct LateSetRaceTests {
    @Test func aSetThroughTheTierIsNeverUndoneByAMoveOnAnotherThread() throws {
        let directory = try TemporaryDirectory(prefix: "strata-late-set")
        let storage = try openStorage(directory.appending("store"))
        try Self.check(Self.race(storage, key: "race/late"), storage, key: "race/late")
    }

    @Test func whileObservedTheKeyIsNeverReportedRemoved() async throws {
        let directory = try TemporaryDirectory(prefix: "strata-late-set")
        let storage = try openStorage(directory.appending("store"))
        let key = "race/late"
        try storage.put(Data("0".utf8), for: key, as: descriptorForTier[.defaults]!)
        let log = ChangeLog(try storage.observe(key))
        defer { log.cancel() }
        // The race blocks: off the task pool, so that the observation's consumer task runs meanwhile.
        let outcome = try await offThePool { try Self.race(storage, key: key) }
        try Self.check(outcome, storage, key: key)
        let final = try storage.location(of: key)?.tier
        let changes = try await log.wait(for: "a change that leaves the key in \(final as Any)") {
            $0.last?.tier == final
        }
        #expect(!changes.contains { $0.location == nil }, "reported removed: \(changes.prefix(5))")
    }

    /// What ``race(_:key:)`` saw: the reads after a set returned that showed an older value, and how many sets and
    /// moves it made.
    struct Outcome: Sendable {
        var stale: [String]
        var sets: Int
        var moves: Int
    }

    /// Sets `key` through the defaults tier's own API while another thread moves it between files and defaults, and
    /// reads it back after every set.
    static func race(_ storage: Storage, key: String) throws -> Outcome {
        if try !storage.contains(key) {
            try storage.put(Data("0".utf8), for: key, as: descriptorForTier[.defaults]!)
        }
        let stop = Atomic<Bool>(false)
        let moves = Atomic<Int>(0)
        let moverDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !stop.load(ordering: .relaxed) {
                for tier in [Tier.files, .defaults] where (try? storage.move(key, to: tier)) != nil {
                    moves.add(1, ordering: .relaxed)
                }
            }
            moverDone.signal()
        }
        var acknowledged = 0
        var stale: [String] = []
        var sets = 0
        // Two seconds of racing, longer on a busy machine until each side has done some twenty rounds (a minute at
        // most): the checks below need both to have run, not a given speed.
        let started = Date()
        func racing() -> Bool {
            let elapsed = Date().timeIntervalSince(started)
            return elapsed < 2 || (elapsed < 60 && (sets <= 20 || moves.load(ordering: .relaxed) <= 20))
        }
        while racing() {
            let next = acknowledged + 1
            do {
                try storage.defaults.put(Data("\(next)".utf8), for: key)
                acknowledged = next
                sets += 1
            } catch let error as StorageError where error.code == .conflict {
                // The key is in files now: a tier write there is refused, as documented.
            }
            let read = try storage.data(for: key).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
            if (read ?? -1) < acknowledged {
                stale.append("set \(acknowledged), read \(read.map(String.init) ?? "nil")")
            }
        }
        stop.store(true, ordering: .relaxed)
        moverDone.wait()
        try storage.defaults.flush()
        return Outcome(stale: stale, sets: sets, moves: moves.load(ordering: .relaxed))
    }

    /// Every read after a set returned showed that set or a later one, the key ends in one tier, and both sides ran.
    static func check(_ outcome: Outcome, _ storage: Storage, key: String) throws {
        #expect(
            outcome.stale.isEmpty,
            "\(outcome.stale.count) reads after a set returned showed an older value: \(outcome.stale.prefix(5))")
        let holders = try tiersHolding(key, in: storage)
        #expect(holders.count == 1, "held by \(holders)")
        #expect(try storage.verifyCatalog().isSound)
        #expect(outcome.sets > 20 && outcome.moves > 20, "\(outcome.sets) sets, \(outcome.moves) moves")
    }
}
