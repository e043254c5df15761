import Foundation
import StrataCatalog
import StrataCatalogPostgres
import StrataCore
import StrataPostgres
import StrataSystem
import StrataTestSupport
import Synchronization
import Testing

/// The catalog engines `Storage` speaks to, held to one contract: the file catalog under a root and the catalog on
/// PostgreSQL that several machines share. "Two instances" are two processes of one machine for the file catalog
/// and two machines for the PostgreSQL one; each body runs on every engine the environment has.
@Suite("Catalog engines")
struct CatalogEngineTests {
    static let engines = CatalogEngineKind.available

    @Test(arguments: engines)
    func aChangeOneInstanceRecordsIsSeenByAnother(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let writer = try store.open()
        let reader = try store.open()
        let modified = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let pdf = StorageLocation(
            key: "files/report", tier: .files, backend: "filesystem", ruleID: "large-to-files", kind: .file,
            contentType: "application/pdf", size: 3_000_000, modified: modified)
        let found = StorageLocation(
            key: "caf\u{E9}", tier: .defaults, backend: "plist", ruleID: "found", kind: nil, contentType: nil,
            size: 0, modified: modified)
        let counted = reader.changeCount
        try writer.record([.set(pdf), .set(found)], durable: true)
        #expect(reader.changeCount != counted, "a change moves the counter every instance reads")
        #expect(try reader.location(of: "files/report") == pdf)
        #expect(try reader.location(of: "caf\u{E9}") == found)
        #expect(try reader.location(of: "cafe\u{301}") == nil, "keys are exact bytes, not canonical equivalents")
        #expect(try reader.tier(of: "files/report") == .files)
        #expect(try reader.placement(of: "files/report") == (.files, reader.changeCount))
        #expect(try reader.count == 2)

        // A move: the intent, the commit of the new place, the settle; a removal during a move keeps the move.
        try writer.record([.intent(key: "files/report", from: .files, to: .records)], durable: true)
        try writer.record([.intent(key: "new", from: nil, to: .secrets)], durable: true)
        #expect(try reader.unsettledKeys() == ["files/report", "new"])
        #expect(try reader.intent(for: "new") == CatalogIntent(key: "new", from: nil, to: .secrets))
        #expect(try reader.keyPlacement(of: "files/report") == KeyPlacement(tier: .files, movingTo: .records))
        #expect(try reader.location(of: "new") == nil, "a key whose only row is a move has no location")
        #expect(try reader.count == 2)
        var moved = pdf
        moved.tier = .records
        moved.backend = "sqlite"
        try writer.record([.set(moved), .settle(key: "files/report")], durable: true)
        try writer.record([.remove(key: "new")], durable: false)
        #expect(try reader.intent(for: "new") != nil, "a removal leaves the move to be settled")
        try writer.record([.settle(key: "new")], durable: true)
        #expect(try reader.unsettledKeys().isEmpty)
        #expect(try reader.keyPlacement(of: "new") == KeyPlacement(tier: nil))
        #expect(try reader.location(of: "files/report") == moved)
        try writer.record([.remove(key: "caf\u{E9}")], durable: false)
        #expect(try reader.location(of: "caf\u{E9}") == nil)
        #expect(try reader.count == 1)
    }

    /// The counter moves with the very first change of a new catalog too (an observer or an optimistic read that
    /// started on the empty catalog must see it), and with every single change after.
    @Test(arguments: engines)
    func everyChangeMovesTheCounterTheFirstToo(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let writer = try store.open()
        let reader = try store.open()
        var counted = reader.changeCount
        for change in [CatalogChange.set(location("k", in: .files)), .intent(key: "k", from: .files, to: .records)] {
            try writer.record([change], durable: true)
            #expect(reader.changeCount != counted, "\(change) left the counter at \(counted)")
            counted = reader.changeCount
        }
    }

    @Test(arguments: engines)
    func locationsOfAPrefixAreSortedByTheirBytes(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let catalog = try store.open()
        let keys = ["photos/b", "photos-old/a", "photos/a", "photo", "photos/\u{E9}", "photos/z", "p", "q/photos/"]
        try catalog.record(keys.map { .set(location($0, in: .files)) }, durable: false)
        #expect(
            try catalog.locations(prefix: "photos").map(\.key) == [
                "photos-old/a", "photos/a", "photos/b", "photos/z", "photos/\u{E9}",
            ])
        #expect(
            try catalog.locations(prefix: "photos/").map(\.key) == [
                "photos/a", "photos/b", "photos/z", "photos/\u{E9}",
            ])
        #expect(try catalog.locations().map(\.key) == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(try catalog.locations(prefix: "photos/%").isEmpty, "a prefix is a plain string, no pattern")
        #expect(try catalog.locations(prefix: "zzz").isEmpty)
        // Prefixes whose last scalars are the largest there are, or just below the surrogates.
        let edges = ["x\u{10FFFF}", "x\u{10FFFF}y", "x\u{D7FF}", "x\u{D7FF}z", "x\u{E000}", "y"]
        try catalog.record(edges.map { .set(location($0, in: .records)) }, durable: false)
        #expect(try catalog.locations(prefix: "x\u{10FFFF}").map(\.key) == ["x\u{10FFFF}", "x\u{10FFFF}y"])
        #expect(try catalog.locations(prefix: "x\u{D7FF}").map(\.key) == ["x\u{D7FF}", "x\u{D7FF}z"])
        #expect(try catalog.locations(prefix: "\u{10FFFF}").isEmpty)
        #expect(try catalog.locations(prefix: "x").count == 5)
    }

    @Test(arguments: engines)
    func theRecordedPlacementIsComparedWithoutSizeOrTime(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let catalog = try store.open()
        var value = location("k", in: .records)
        #expect(try catalog.recordedPlacement(comparedWith: value) == nil)
        try catalog.record([.set(value)], durable: false)
        value.size += 10
        value.modified += 60
        #expect(try catalog.recordedPlacement(comparedWith: value)?.isUnchanged == true)
        value.contentType = "text/plain"
        #expect(
            try catalog.recordedPlacement(comparedWith: value)
                == RecordedPlacement(tier: .records, kind: .structured, isUnchanged: false))
    }

    /// A rewrite through a tier's own API: recorded again when placed in that tier, recorded as found when placed
    /// nowhere, left alone when placed elsewhere or under a move.
    @Test(arguments: engines)
    func aRewriteIsRecordedOnlyWhereTheKeyIsPlaced(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let catalog = try store.open()
        let old = Date(timeIntervalSince1970: 1_000)
        var here = location("here", in: .defaults)
        here.modified = old
        var elsewhere = location("elsewhere", in: .files)
        elsewhere.modified = old
        try catalog.record(
            [.set(here), .set(elsewhere), .intent(key: "moving", from: nil, to: .defaults)], durable: false)
        try catalog.recordRewrite(of: ["here", "elsewhere", "moving", "fresh"], in: .defaults, backend: "plist")
        #expect(try catalog.location(of: "here")!.modified > old)
        #expect(try catalog.location(of: "elsewhere") == elsewhere)
        #expect(try catalog.location(of: "moving") == nil)
        let fresh = try #require(try catalog.location(of: "fresh"))
        #expect((fresh.tier, fresh.backend, fresh.ruleID, fresh.kind) == (.defaults, "plist", "found", nil))
    }

    /// Only the thread inside `withKeyLock` for a key holds it; another instance (process or machine) cannot take
    /// it until it is let go, and a thread waiting for it goes on then.
    @Test(arguments: engines)
    func aKeysLockExcludesEveryOtherInstance(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let first = try store.open()
        let second = try store.open()
        let order = Mutex<[String]>([])
        try first.withKeyLock("key-0") {
            #expect(first.isLockedByCurrentThread("key-0"))
            #expect(!first.isLockedByCurrentThread("key-20"))
            #expect(try first.keyPlacement(of: "key-0").isBeingChanged)
            let attempts = Mutex<[String]>([])
            let thread = Thread {
                func attempt(_ key: String) -> String {
                    do {
                        return try second.withKeyLockIfFree(key) { "taken" } ?? "busy"
                    } catch {
                        return "\(error)"
                    }
                }
                let seen = [attempt("key-0"), attempt("another key")]
                attempts.withLock { $0 = seen }
                try? second.withKeyLock("key-0") { order.withLock { $0.append("second") } }
            }
            thread.start()
            while attempts.withLock({ $0.isEmpty }) { usleep(1000) }
            #expect(attempts.withLock { $0 } == ["busy", "taken"], "busy elsewhere; another key free")
            usleep(100_000)
            order.withLock { $0.append("first") }
            try first.withKeyLock("caf\u{E9}") {
                #expect(first.isLockedByCurrentThread("caf\u{E9}") && first.isLockedByCurrentThread("key-0"))
            }
            #expect(try first.withKeyLocks(["key-20", "caf\u{E9}"]) { first.isLockedByCurrentThread("key-0") })
        }
        #expect(!first.isLockedByCurrentThread("key-0"))
        let deadline = Date() + 10
        while order.withLock({ $0.count }) < 2, Date() < deadline { usleep(1000) }
        #expect(order.withLock { $0 } == ["first", "second"])
        #expect(try second.withKeyLockIfFree("key-0") { second.isLockedByCurrentThread("key-0") } == true)
    }

    /// Every key's lock (a capture) waits for a key held anywhere, and keeps every key from being taken meanwhile.
    @Test(arguments: engines)
    func everyKeysLockWaitsForAHeldKeyAndHoldsTheRest(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let first = try store.open()
        let second = try store.open()
        let entered = Mutex(false)
        let release = Mutex(false)
        let done = Mutex(false)
        let thread = Thread {
            try? second.withEveryKeyLock {
                entered.withLock { $0 = true }
                while !release.withLock({ $0 }) { usleep(1000) }
            }
            done.withLock { $0 = true }
        }
        try first.withKeyLock("held") {
            thread.start()
            usleep(200_000)
            let early = entered.withLock { $0 }
            #expect(!early, "a key is held: not every key can be")
        }
        let deadline = Date() + 10
        while !entered.withLock({ $0 }), Date() < deadline { usleep(1000) }
        let late = entered.withLock { $0 }
        #expect(late)
        #expect(try first.withKeyLockIfFree("any key") { true } == nil, "every key is held")
        release.withLock { $0 = true }
        while !done.withLock({ $0 }), Date() < deadline { usleep(1000) }
        #expect(try first.withKeyLockIfFree("any key") { true } == true)
    }

    /// A write staged under `stageIfPlaced` or `changeIfSettled` runs only while the key is placed as it says, with no
    /// move of it under way.
    @Test(arguments: engines)
    func stagedChangesRunOnlyForASettledKeyPlacedSo(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let catalog = try store.open()
        let placed = location("k", in: .defaults)
        try catalog.record([.set(placed)], durable: false)
        #expect(try catalog.changeIfSettled("k", in: .defaults) {})
        #expect(try !catalog.changeIfSettled("k", in: .files) {})
        #expect(try !catalog.changeIfSettled("unknown", in: .defaults) {})
        var heldWhileStaging = false
        #expect(try catalog.stageIfPlaced(placed) { heldWhileStaging = catalog.isLockedByCurrentThread("k") })
        #expect(heldWhileStaging)
        var otherRule = placed
        otherRule.ruleID = "move"
        #expect(try !catalog.stageIfPlaced(otherRule) {})
        try catalog.record([.intent(key: "k", from: .defaults, to: .files)], durable: true)
        #expect(try !catalog.changeIfSettled("k", in: .defaults) {})
        #expect(try !catalog.stageIfPlaced(placed) {})
        try catalog.withKeyLockForChange("k") { placement in
            #expect(placement == KeyPlacement(tier: .defaults, movingTo: .files))
        }
    }

    /// A capture is the file catalog's log whatever the engine: a file catalog opened on it has every entry and move
    /// as they were at the instant (the pin), whatever changed before the capture's last step.
    @Test(arguments: engines)
    func aCaptureReadsBackAsAFileCatalog(_ kind: CatalogEngineKind) throws {
        let store = try CatalogEngineLocation(kind)
        let catalog = try store.open()
        let locations = (0..<50).map { location("key-\($0)", in: Tier.allCases[$0 % 4]) }
        try catalog.record(locations.map { .set($0) }, durable: false)
        try catalog.record([.intent(key: "key-3", from: .files, to: .records)], durable: true)
        let capture = try FolderCapture(folder: store.directory.appending("capture"))
        let steps = catalog.beginCapture()
        let instant = CaptureInstant()
        defer { instant.end() }
        var report = try catalog.withEveryKeyLock { try steps.pin(into: capture, at: instant) }
        try catalog.record([.remove(key: "key-7"), .set(location("key-new", in: .files))], durable: true)
        report.merge(try steps.finish(into: capture))
        #expect(report.fileCount == 1)
        let restored = store.directory.appending("restored")
        try FileManager.default.createDirectory(atPath: restored + "/catalog", withIntermediateDirectories: true)
        try #require(capture.contents(of: "catalog/log")).write(to: URL(fileURLWithPath: restored + "/catalog/log"))
        let reopened = try StorageCatalog(root: restored)
        #expect(try reopened.locations() == locations.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        #expect(try reopened.unsettledKeys() == ["key-3"])
    }

    func location(_ key: String, in tier: Tier) -> StorageLocation {
        StorageLocation(
            key: key, tier: tier, backend: tier.rawValue, ruleID: "rule", kind: .structured, contentType: nil,
            size: 12, modified: Date(timeIntervalSince1970: 1_700_000_000))
    }
}
