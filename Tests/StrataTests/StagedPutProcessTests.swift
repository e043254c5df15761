import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataCatalog

/// A put that leaves a preference where the catalog places it is staged without the key's lock across processes
/// (the defaults tier writes it later, and asks the catalog again then), with real processes: it does not wait for
/// another process that holds the key's lock, and beside another process moving the key, or killed in the middle of
/// a move, the key still ends in exactly one tier.
@Suite("Storage: preference puts staged beside other processes")
struct StagedPutProcessTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let environment = ["STRATA_SECRETS_KEY": testSecretsKeyHex]
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-staged-put")
    }

    static var rounds: Int {
        max(1, (Int(ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"] ?? "") ?? 200) / 10)
    }

    /// Another process holds the key's lock (as a put, move or delete of it does, or a process that died holding it
    /// would until the kernel frees it): a put that leaves the key in defaults goes through, a move waits for the
    /// lock, and finishes once its holder is killed, carrying the staged value.
    @Test func aPutThatStaysInDefaultsDoesNotWaitForTheKeysLock() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let storage = try openStorage(root)
        try storage.set("light", for: "theme")
        try storage.backend(for: .defaults).flush()
        let lockFile = root + "/catalog/locks/" + CatalogLocks.name(of: CatalogLocks.stripe(of: "theme"))
        let holder = try ChildProcess(child, ["hold-lock", lockFile, "exclusive"])
        defer {
            holder.kill(SIGKILL)
            _ = holder.wait()
        }
        _ = try holder.waitForLine(timeout: 60) { $0.hasPrefix("locked") }

        let putter = try ChildProcess(child, ["storage-step", root, "set", "theme", "dark"], environment: environment)
        _ = try putter.waitForLine(timeout: 60) { $0 == "ack" }
        #expect(putter.wait().status == 0)
        #expect(try storage.value(String.self, for: "theme") == "dark")

        let mover = try ChildProcess(child, ["storage-step", root, "move", "theme", "files"], environment: environment)
        holder.kill(SIGKILL)
        _ = holder.wait()
        _ = try mover.waitForLine(timeout: 60) { $0 == "ack" }
        #expect(mover.wait().status == 0)
        let reopened = try openStorage(root)
        #expect(try reopened.location(of: "theme")?.tier == .files)
        #expect(try reopened.value(String.self, for: "theme") == "dark")
        #expect(try tiersHolding("theme", in: reopened) == [.files])
        #expect(try reopened.verifyCatalog().isSound)
    }

    /// One process puts a preference over and over (most puts staged, a put that finds the key in files moving it
    /// back), while another moves the key between files and defaults and is killed at a random moment, in the middle
    /// of a move or holding the key's lock. The putter goes on past the dead mover (a move it left is settled by its
    /// next put that is not staged), and once it is killed too the key is in exactly one tier, where the catalog
    /// places it, holding one of its values.
    @Test func stagedPutsBesideAMoverKilledMidMoveLeaveTheKeyInOneTier() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        var generator = SystemRandomNumberGenerator()
        let storage = try openStorage(root)
        try storage.put(Data("p-0".utf8), for: "raced", as: descriptorForTier[.defaults]!)
        try storage.backend(for: .defaults).flush()
        for round in 0..<Self.rounds {
            let putter = try ChildProcess(
                child, ["storage-put-loop", root, "raced", "\(round * 1_000_000)"], environment: environment)
            defer {
                putter.kill(SIGKILL)
                _ = putter.wait()
            }
            _ = try putter.waitForLine(timeout: 60) { $0.hasPrefix("ack") }
            let mover = try ChildProcess(child, ["storage-move-loop", root, "raced"], environment: environment)
            _ = try mover.waitForLine(timeout: 60) { $0.hasPrefix("moved") }
            usleep(UInt32.random(in: 0...30_000, using: &generator))
            mover.kill(SIGKILL)
            let moverResult = mover.wait()
            #expect(moverResult.wasSignalled, "round \(round): the mover ended by itself: \(moverResult.standardError)")
            // The putter goes on: a dead mover's lock is free, and its unfinished move is settled.
            let acknowledged = Self.lastAcknowledged(putter.lines)
            _ = try putter.waitForLine(timeout: 60) { Self.lastAcknowledged([$0]) > acknowledged + 20 }
            putter.kill(SIGKILL)
            let putterResult = putter.wait()
            #expect(
                putterResult.wasSignalled, "round \(round): the putter ended by itself: \(putterResult.standardError)")

            let reopened = try openStorage(root)
            let holders = try tiersHolding("raced", in: reopened)
            #expect(holders.count == 1, "round \(round): the key is in \(holders)")
            #expect(holders.first == (try reopened.catalog.location(of: "raced")?.tier), "round \(round)")
            #expect(try reopened.catalog.unsettledKeys().isEmpty, "round \(round): a move was left unsettled")
            let value = try reopened.data(for: "raced").map { String(decoding: $0, as: UTF8.self) }
            #expect(value?.hasPrefix("p-") == true, "round \(round): read \(value ?? "nothing")")
            #expect(try reopened.verifyCatalog().isSound, "round \(round)")
        }
    }

    /// One process puts a preference and writes the suite over and over (each write asks the catalog first, under the
    /// suite's lock), while another puts the key, deletes it and looks for a copy the catalog does not record. A
    /// delete removes the copies and then records the removal: a write that asks the catalog in between finds the
    /// key still placed in defaults and puts the value back, a copy no record places (a read adopts it, or refuses
    /// the key when another tier holds it too). So the delete removes it once more after the record.
    @Test func aDeleteBesideStagedPutsLeavesNoCopyTheCatalogDoesNotRecord() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let storage = try openStorage(root)
        try storage.put(Data("p-0".utf8), for: "raced", as: descriptorForTier[.defaults]!)
        try storage.backend(for: .defaults).flush()
        let putter = try ChildProcess(
            child, ["storage-put-loop", root, "raced", "1", "flush"], environment: environment)
        defer {
            putter.kill(SIGKILL)
            _ = putter.wait()
        }
        _ = try putter.waitForLine(timeout: 60) { $0.hasPrefix("ack") }
        let deleter = try ChildProcess(
            child, ["storage-delete-loop", root, "raced", "\(Self.rounds * 20)"], environment: environment)
        let result = deleter.wait()
        #expect(result.status == 0, "\(result.standardError.prefix(2_000))")
        #expect(deleter.lines.last == "done")
        let orphans = deleter.lines.filter { $0.hasPrefix("orphan") }
        #expect(
            orphans.isEmpty, "\(orphans.count) deletes left a copy the catalog does not record: \(orphans.prefix(5))")
    }

    /// The highest `ack N` among `lines`, or -1.
    static func lastAcknowledged(_ lines: [String]) -> Int {
        lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? -1
    }
}
