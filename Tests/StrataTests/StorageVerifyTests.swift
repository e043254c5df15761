import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// `verifyCatalog()`: moves left by killed processes are settled and reported, and every disagreement between the
/// catalog and the tiers is reported as a typed problem.
@Suite("Storage: verifying the catalog")
struct StorageVerifyTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let environment = ["STRATA_SECRETS_KEY": testSecretsKeyHex]
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-storage-verify")
    }

    /// A child is killed with SIGKILL at a chosen step of a move: after the new copy is written and before the
    /// move is recorded (undone: the old value stays), or after it is recorded and before the old copy is removed
    /// (finished: the new value stays). The next open settles it, and `verifyCatalog` reports that once.
    @Test(arguments: [
        ("write", "old", Tier.defaults, SettledMove.Outcome.undone), ("remove", "new", .defaults, .finished),
    ])
    func sigkillMidMoveIsSettledAndReported(
        _ step: String, _ value: String, _ tier: Tier, _ outcome: SettledMove.Outcome
    )
        throws
    {
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["storage-stall", root, step], environment: environment
        )
        _ = try child.waitForLine(timeout: 60) { $0 == "stalled" }
        child.kill(SIGKILL)
        #expect(child.wait().wasSignalled)
        // Before anyone opens the store, both tiers hold a copy.
        let paths = try StoragePaths(root: root)
        #expect(try FileStore(paths: paths).exists("stall"))
        #expect(try DefaultsStore(suite: "standard", paths: paths).containsValue(forKey: "stall"))

        let storage = try openStorage(root)
        let (from, to): (Tier, Tier) = step == "write" ? (.defaults, .files) : (.files, .defaults)
        let report = try storage.verifyCatalog()
        #expect(report.settled == [SettledMove(key: "stall", from: from, to: to, outcome: outcome)])
        #expect(report.settled.first?.tier == tier)
        #expect(report.problems.isEmpty && report.isSound, "\(report.lines)")
        #expect(report.movingKeys.isEmpty && report.uncheckedTiers.isEmpty)
        #expect(try storage.data(for: "stall") == Data(value.utf8))
        #expect(try tiersHolding("stall", in: storage) == [tier])
        // Reported once.
        #expect(try storage.verifyCatalog().settled.isEmpty)
    }

    /// A child is killed after a move to secrets is recorded and before the old plaintext copy in files is
    /// erased: the next open finishes the move by erasing it, so no file under the root (nor another name of the
    /// old file) keeps the plaintext.
    @Test func sigkillBeforeErasingIsFinishedByTheNextOpen() throws {
        let marker = "STALLED-PLAINTEXT-0b7c"
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["storage-stall", root, "remove", marker],
            environment: environment)
        _ = try child.waitForLine(timeout: 60) { $0 == "stalled" }
        child.kill(SIGKILL)
        #expect(child.wait().wasSignalled)
        let link = directory.appending("link")
        try FileManager.default.linkItem(atPath: root + "/files/stall", toPath: link)
        #expect(filesUnder(root).contains { $0.data.range(of: Data(marker.utf8)) != nil })

        let storage = try openStorage(root)
        #expect(
            try storage.verifyCatalog().settled == [
                SettledMove(key: "stall", from: .files, to: .secrets, outcome: .finished)
            ])
        #expect(try storage.data(for: "stall") == Data("new".utf8))
        #expect(try tiersHolding("stall", in: storage) == [.secrets])
        #expect(!filesUnder(root).contains { $0.data.range(of: Data(marker.utf8)) != nil })
        #expect(try Data(contentsOf: URL(fileURLWithPath: link)).range(of: Data(marker.utf8)) == nil)
    }

    /// The kill lands at random moments of a child cycling one key through every tier: whatever it interrupted,
    /// the open settles it and the check finds nothing left.
    @Test func randomKillsLeaveNothingToFix() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        var next = 0
        var settled = 0
        for round in 0..<30 {
            let process = try ChildProcess(child, ["storage-moves", root, "\(next)"], environment: environment)
            _ = try process.waitForLine(timeout: 60) { $0.hasPrefix("ack") }
            usleep(UInt32.random(in: 0...20_000))
            process.kill(SIGKILL)
            _ = process.wait()
            let last = try #require(
                process.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max())
            let storage = try openStorage(root)
            let report = try storage.verifyCatalog()
            #expect(report.isSound, "round \(round): \(report.lines)")
            for move in report.settled {
                #expect(move.key == "moved")
                #expect(try storage.location(of: "moved")?.tier == move.tier, "round \(round): \(move)")
            }
            settled += report.settled.count
            #expect(try tiersHolding("moved", in: storage).count == 1)
            next = last + 2
        }
        // Most of a move's time is spent in its fsyncs, with the intent pending: some kills land there.
        #expect(settled > 0)
    }

    /// A move whose old or new tier is locked cannot be settled: reported with the error, the key still readable,
    /// and settled by the next open that can reach the tier.
    @Test func aMoveThatCannotSettleIsReported() throws {
        do {
            let storage = try openStorage(root)
            try storage.put(Data("old".utf8), for: "pending", as: descriptorForTier[.defaults]!)
            try storage.catalog.record([.intent(key: "pending", from: .defaults, to: .secrets)], durable: true)
        }
        let locked = try Storage(root: root)
        let report = try locked.verifyCatalog()
        #expect(report.settled.isEmpty)
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.key == "pending" && problem.kind == .unsettledMove(from: .defaults, to: .secrets))
        #expect(problem.error?.code == .locked)
        #expect("\(problem)".contains("Make the tiers reachable"))
        #expect(report.uncheckedTiers[.secrets]?.code == .locked)
        #expect(try locked.data(for: "pending") == Data("old".utf8))

        let unlocked = try openStorage(root)
        let settled = try unlocked.verifyCatalog()
        #expect(settled.settled == [SettledMove(key: "pending", from: .defaults, to: .secrets, outcome: .undone)])
        #expect(settled.isSound, "\(settled.lines)")
    }

    /// A catalogued value removed from its tier outside Strata, found elsewhere or nowhere: the check repairs the
    /// entry (the key is recorded where its copy is, or dropped) and reports each repair once.
    @Test func aValueRemovedOutsideIsRepairedAndReported() throws {
        let storage = try openStorage(root)
        try storage.put(Data("a".utf8), for: "gone", as: descriptorForTier[.files]!)
        try storage.put(Data("b".utf8), for: "elsewhere", as: descriptorForTier[.records]!)
        #expect(try storage.verifyCatalog().isSound)
        try OutsideHands.removeFile("gone", root: root)
        #expect(try OutsideHands.records(root: root).delete("elsewhere"))
        try OutsideHands.writeFile("elsewhere", Data("b".utf8), root: root)
        let report = try storage.verifyCatalog()
        #expect(report.isSound, "\(report.lines)")
        #expect(
            report.repaired == [
                RepairedEntry(key: "elsewhere", tier: .records, foundIn: .files),
                RepairedEntry(key: "gone", tier: .files, foundIn: nil),
            ])
        #expect(report.lines.contains { $0.hasPrefix("repaired: gone: ") && $0.contains("entry removed") })
        #expect(try storage.location(of: "elsewhere")?.tier == .files)
        #expect(try storage.location(of: "gone") == nil)
        #expect(try storage.verifyCatalog().repaired.isEmpty)
    }

    /// Copies in several tiers (written outside Strata beside a catalogued key, or through tiers' own APIs before the
    /// catalog knew the key) are reported.
    @Test func copiesInSeveralTiersAreReported() throws {
        let storage = try openStorage(root)
        try storage.put(Data("a".utf8), for: "twice", as: descriptorForTier[.defaults]!)
        try OutsideHands.records(root: root).put(Data("b".utf8), for: "twice")
        try storage.backend(for: .secrets).put(Data("c".utf8), for: "uncatalogued")
        try storage.backend(for: .files).put(Data("d".utf8), for: "uncatalogued")
        let problems = try storage.verifyCatalog().problems
        #expect(
            problems == [
                CatalogProblem(key: "twice", kind: .copiesInSeveralTiers([.defaults, .records])),
                CatalogProblem(key: "uncatalogued", kind: .copiesInSeveralTiers([.secrets, .files])),
            ])
    }

    /// A key catalogued under a backend that is not registered, or registered and not active.
    @Test func anUnknownBackendIsReported() throws {
        do {
            let storage = try openStorage(root)
            storage.registry.register(.files, name: "memory") { _ in InMemoryBackend(tier: .files, name: "memory") }
            try storage.put(Data("a".utf8), for: "in-memory", as: descriptorForTier[.files]!)
            #expect(try storage.location(of: "in-memory")?.backend == "memory")
            #expect(try storage.verifyCatalog().isSound)
        }
        let reopened = try openStorage(root)
        #expect(
            try reopened.verifyCatalog().problems == [
                CatalogProblem(key: "in-memory", kind: .unregisteredBackend(tier: .files, name: "memory"))
            ])
        reopened.registry.register(.files, name: "memory", makeActive: false) {
            _ in InMemoryBackend(tier: .files, name: "memory")
        }
        let problem = try #require(try reopened.verifyCatalog().problems.first)
        #expect(problem.kind == .inactiveBackend(tier: .files, name: "memory", active: "filesystem"))
        #expect("\(problem)".contains("the active one is 'filesystem'"))
    }
}
