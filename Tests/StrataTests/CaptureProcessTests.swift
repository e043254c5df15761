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
