import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 33 item 3: a reader in another process than the writer never concludes that an item is absent, or that a
/// file is damaged, from two reads of different generations (the manifest, then an item file or the folder's
/// listing, while a writer moves items between them; the manifest, then an item, while another process rotates).
@Suite("SecretStore: readers beside a writer in another process")
struct SecretConcurrentReadTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    static let count = 3

    /// Starts the child that moves `move/m<i>` between the manifest and files (Tests/Child/SecretsInlineModes.swift),
    /// after storing generation 0, and waits for its first generation.
    func startMoving() throws -> ChildProcess {
        let store = try fixture.store()
        for index in 0..<Self.count {
            try store.set(movingValue(0, index), service: "move", account: "m\(index)")
        }
        let writer = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"),
            ["secrets-move-loop", fixture.paths.root, testKeyHex, "\(Self.count)", "1"])
        _ = try writer.waitForLine { $0.hasPrefix("ack ") }
        return writer
    }

    /// The generations the writer acknowledged.
    func acknowledged(_ writer: ChildProcess) -> Int {
        writer.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? 0
    }

    /// Runs `read` until the writer moved every item a few times over (60 more generations), then stops it.
    func whileMoving(_ read: (SecretStore) throws -> Void) throws {
        let writer = try startMoving()
        defer { writer.kill(SIGKILL) }
        let store = try fixture.store()
        let target = acknowledged(writer) + 60
        var rounds = 0
        while acknowledged(writer) < target, rounds < 200_000 {
            try read(store)
            rounds += 1
        }
        writer.kill(SIGKILL)
        _ = writer.wait()
        #expect(acknowledged(writer) >= target, "the writer moved items meanwhile (\(rounds) rounds)")
    }

    @Test func containsNeverMissesAnItemMovingBetweenManifestAndFile() throws {
        var misses = 0
        try whileMoving { store in
            for index in 0..<Self.count where try !store.contains(service: "move", account: "m\(index)") {
                misses += 1
            }
        }
        #expect(misses == 0)
    }

    @Test func aListingNeverMissesAnItemMovingBetweenManifestAndFile() throws {
        var short: [Int] = []
        try whileMoving { store in
            let listed = try store.items(service: "move").count
            if listed != Self.count { short.append(listed) }
        }
        #expect(short.isEmpty, "listings with items missing: \(short.prefix(10))")
    }

    @Test func theItemCountNeverMissesAnItemMovingBetweenManifestAndFile() throws {
        var short: [Int] = []
        try whileMoving { store in
            let counted = store.itemCount
            if counted != Self.count { short.append(counted) }
        }
        #expect(short.isEmpty, "counts with items missing: \(short.prefix(10))")
    }

    /// A reader that unlocked before another process rotated the key reads every item, or is told the key was
    /// rotated (`locked`, and reads again once unlocked again): never `nil`, never `corrupt`, even when it read the
    /// manifest before the rotation switched it and the item after the rotation finished.
    @Test func aReaderNeverSeesDamageOrAbsenceWhileAnotherProcessRotates() throws {
        let store = try fixture.store()
        let count = 20
        for index in 0..<count { try store.set("value-\(index)", service: "r", account: "\(index)") }
        let rotator = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"),
            ["secrets-rotate-loop", fixture.paths.root, testKeyHex])
        defer { rotator.kill(SIGKILL) }
        _ = try rotator.waitForLine { $0 == "unlocked" }
        func rotations() -> Int { rotator.lines.filter { $0.hasPrefix("rotated") }.count }
        let reader = try fixture.store()
        var wrong: [String] = []
        var relocks = 0
        var rounds = 0
        while rotations() < 15, rounds < 100_000 {
            rounds += 1
            for index in 0..<count {
                do {
                    let value = try reader.get(service: "r", account: "\(index)")?.stringValue
                    if value != "value-\(index)" { wrong.append("\(index): \(value ?? "nil")") }
                } catch let error as StorageError where error.code == .locked {
                    relocks += 1
                    try reader.unlock(with: testKey, createIfMissing: false)
                } catch let error as StorageError {
                    wrong.append("\(index): \(error.code) \(error.message)")
                }
            }
        }
        rotator.kill(SIGKILL)
        _ = rotator.wait()
        #expect(rotations() >= 15, "the other process rotated meanwhile (\(rounds) rounds)")
        #expect(wrong.isEmpty, "\(wrong.count) wrong reads (\(relocks) unlocks again): \(wrong.prefix(5))")
    }

    /// The same values as the child's move loops (Tests/Child/SecretsInlineModes.swift).
    func movingValue(_ generation: Int, _ index: Int) -> String {
        let value = "value \(generation) \(index)"
        return (generation + index) % 3 == 0 ? value + String(repeating: ".", count: 2048) : value
    }
}
