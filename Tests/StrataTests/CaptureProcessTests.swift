import Foundation
import Strata
import StrataTestSupport
import Testing

/// Capture while other processes write, and restore killed half-way: real processes, killed with SIGKILL.
@Suite("Storage: capture and restore across processes")
struct CaptureProcessTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let environment = ["STRATA_SECRETS_KEY": testSecretsKeyHex]
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-capture-process")
    }

    /// The round a writer's value holds: `n,` repeated 64 times; `nil` for a torn or foreign value.
    static func round(of value: Data?) -> Int? {
        guard let value, let text = String(data: value, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 65, parts.last == "", let first = Int(parts[0]) else { return nil }
        return parts.dropLast().allSatisfy({ $0 == parts[0] }) ? first : nil
    }

    /// Four processes write every tier in rounds while the store is captured. The restored store is a state that
    /// existed during the capture: every round acknowledged before the capture began is there, no value is torn,
    /// each writer's tiers hold the same round or the one before in write order, and catalog and tiers agree.
    @Test func captureWhileFourProcessesWrite() throws {
        _ = try openStorage(root)
        let writers = try (0..<4).map { id in
            try ChildProcess(
                try TestExecutables.url(named: "strata-test-child"), ["capture-writer", root, "\(id)"],
                environment: environment)
        }
        defer { for writer in writers { writer.kill(SIGKILL) } }
        for writer in writers { _ = try writer.waitForLine(timeout: 120) { $0 == "wrote 3" } }
        func lastRound(_ writer: ChildProcess) -> Int {
            writer.lines.compactMap { $0.hasPrefix("wrote ") ? Int($0.dropFirst(6)) : nil }.max() ?? 0
        }
        let acknowledged = writers.map(lastRound)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        let storage = try openStorage(root)
        try storage.capture(into: capture)
        // Writers went on after the capture.
        for (index, writer) in writers.enumerated() {
            _ = try writer.waitForLine(timeout: 120) { $0 == "wrote \(acknowledged[index] + 2)" }
            writer.kill(SIGKILL)
            _ = writer.wait()
        }

        let target = directory.appending("restored")
        try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        let restored = try openStorage(target)
        #expect(try restored.verifyCatalog().isSound)
        for id in 0..<4 {
            let rounds = try captureWriterTiers.map { tier -> Int in
                let value = try restored.data(for: "w\(id)/\(tier)")
                let round = Self.round(of: value)
                #expect(round != nil, "w\(id)/\(tier) is torn or missing")
                #expect(try restored.location(of: "w\(id)/\(tier)")?.tier == tier)
                return round ?? -1
            }
            #expect(rounds.allSatisfy { $0 >= acknowledged[id] }, "writer \(id): \(rounds) < \(acknowledged[id])")
            // Written in this order, one round after another: a prefix of the tiers may be one round ahead.
            #expect(zip(rounds, rounds.dropFirst()).allSatisfy { $0 >= $1 } && rounds[0] <= rounds[3] + 1, "\(rounds)")
        }
    }

    /// Keys move files → defaults → secrets → records → files in a loop in another process while the store, with
    /// 48 MiB of files to copy ahead, is captured three times. Each restored store verifies, and each key is in
    /// exactly the tier its captured catalog names — the one its value says it was put in — never in two tiers or
    /// none, though many moves ran while the files were being copied ahead of the capture's instant.
    @Test func keysMovingBetweenTiersAreCapturedWhereTheCatalogSays() throws {
        let storage = try openStorage(root)
        let bulk = Data(repeating: 0x5A, count: 1 << 20)
        for index in 0..<48 {
            try storage.put(bulk, for: "bulk/\(index)", as: descriptorForTier[.files]!)
        }
        let count = 8
        let mover = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["capture-mover", root, "\(count)"],
            environment: environment)
        defer { mover.kill(SIGKILL) }
        _ = try mover.waitForLine(timeout: 120) { $0 == "moved 2" }
        for attempt in 0..<3 {
            let capture = try FolderCapture(folder: directory.appending("capture-\(attempt)"))
            let report = try storage.capture(into: capture)
            let target = directory.appending("restored-\(attempt)")
            try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
            let restored = try openStorage(target)
            #expect(try restored.verifyCatalog().isSound)
            for index in 0..<count {
                let key = "move/\(index)"
                let value = try #require(try restored.data(for: key), "\(key) is missing")
                let parts = String(decoding: value, as: UTF8.self).split(separator: ":")
                let round = try #require(parts.count == 2 ? Int(parts[1]) : nil, "\(key) holds \(parts)")
                let tier = captureMoverTiers[(index + round) % captureMoverTiers.count]
                #expect(try restored.location(of: key)?.tier == tier, "\(key) round \(round)")
                #expect(try tiersHolding(key, in: restored) == [tier], "\(key) round \(round)")
            }
            Self.log("capture \(attempt): \(report.withdrawnPaths.count) files withdrawn")
        }
        let moved = mover.lines.filter { $0.hasPrefix("moved ") }.count
        #expect(moved > 2, "the mover made no move during the captures")
    }

    static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A restore killed half-way leaves no store at its target; the next restore there removes the dead one's
    /// staging folder and succeeds.
    @Test func sigkillMidRestoreLeavesNoHalfStore() throws {
        let storage = try openStorage(root)
        for (tier, descriptor) in descriptorForTier {
            try storage.put(Data("value of \(tier)".utf8), for: "k/\(tier)", as: descriptor)
        }
        let folder = directory.appending("capture")
        try storage.capture(into: try FolderCapture(folder: folder))
        let target = directory.appending("restored")
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["restore-stall", folder, target],
            environment: environment)
        _ = try child.waitForLine(timeout: 60) { $0 == "stalled" }
        child.kill(SIGKILL)
        #expect(child.wait().wasSignalled)
        #expect(!FileManager.default.fileExists(atPath: target))
        func leftovers() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                $0.hasPrefix(".strata-restore-")
            }
        }
        #expect(try leftovers().count == 1)

        try Storage.restore(from: try FolderCapture(folder: folder), to: target, secretsKey: testSecretsKey)
        #expect(try leftovers().isEmpty)
        let restored = try openStorage(target)
        for tier in Tier.allCases { #expect(try restored.data(for: "k/\(tier)") == Data("value of \(tier)".utf8)) }
    }
}

/// The tiers a `capture-writer` child writes, in its order.
let captureWriterTiers: [Tier] = [.defaults, .records, .files, .secrets]

/// The tiers a `capture-mover` child moves its keys around, in its order.
let captureMoverTiers: [Tier] = [.files, .defaults, .secrets, .records]
