import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

/// A preference set through the defaults tier's own API is staged at once when the catalog places its key in
/// defaults, and written later. A `Storage` move of the key on another thread of the same process must never undo
/// such a set once it returned (the move carrying the value from before it), nor let it land in the suite after the
/// key has left defaults (a copy in two tiers).
@Suite("Storage: a tier's coalesced set beside this process's moves")
struct LateSetRaceTests {
    @Test func aSetThroughTheTierIsNeverUndoneByAMoveOnAnotherThread() throws {
        let directory = try TemporaryDirectory(prefix: "strata-late-set")
        let storage = try openStorage(directory.appending("store"))
        let key = "race/late"
        try storage.put(Data("0".utf8), for: key, as: descriptorForTier[.defaults]!)
        let stop = Atomic<Bool>(false)
        let moves = Atomic<Int>(0)
        let moverDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
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
        #expect(stale.isEmpty, "\(stale.count) reads after a set returned showed an older value: \(stale.prefix(5))")
        let holders = try tiersHolding(key, in: storage)
        #expect(holders.count == 1, "held by \(holders)")
        #expect(try storage.verifyCatalog().isSound)
        #expect(
            sets > 20 && moves.load(ordering: .relaxed) > 20, "\(sets) sets, \(moves.load(ordering: .relaxed)) moves")
    }
}
