import Foundation
import StrataCore

/// A seeded generator (SplitMix64): the same seed gives the same kill moments and the same damaged files.
struct Seeded: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One line of the summary table.
struct Tally {
    var scenario: String
    var tier: String
    var rounds = 0
    var faults = 0
    var checked = 0
    var lost = 0
    var unopenable = 0
    var crashes = 0
    var untyped = 0
    var notes: [String] = []

    var isClean: Bool { lost == 0 && unopenable == 0 && crashes == 0 && untyped == 0 }

    static func table(_ rows: [Tally]) -> String {
        let header = [
            "scenario", "tier", "rounds", "faults", "acks/checks", "lost", "unopenable", "crashes", "untyped errors",
        ]
        let lines = rows.map {
            [
                $0.scenario, $0.tier, "\($0.rounds)", "\($0.faults)", "\($0.checked)", "\($0.lost)", "\($0.unopenable)",
                "\($0.crashes)", "\($0.untyped)",
            ]
        }
        let total = [
            "total", "", "\(rows.map(\.rounds).reduce(0, +))", "\(rows.map(\.faults).reduce(0, +))",
            "\(rows.map(\.checked).reduce(0, +))",
            "\(rows.map(\.lost).reduce(0, +))", "\(rows.map(\.unopenable).reduce(0, +))",
            "\(rows.map(\.crashes).reduce(0, +))",
            "\(rows.map(\.untyped).reduce(0, +))",
        ]
        let all = [header] + lines + [total]
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        var out: [String] = []
        for (index, row) in all.enumerated() {
            out.append(
                row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(
                    separator: "  "))
            if index == 0 || index == all.count - 2 {
                out.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
            }
        }
        return out.joined(separator: "\n")
    }
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func temporaryRoot(_ name: String) throws -> String {
    var base = NSTemporaryDirectory()
    while base.hasSuffix("/") { base.removeLast() }
    let path = base + "/strata-torture-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Damages a file the ways storage meets in the wild.
enum Damage: CaseIterable {
    case truncate, bitFlips, hugeLength, wrongVersion

    func apply(_ data: Data, versionOffsets: [Int], generator: inout Seeded) -> Data {
        var bytes = [UInt8](data)
        guard !bytes.isEmpty else { return data }
        switch self {
        case .truncate:
            bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
        case .bitFlips:
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            }
        case .hugeLength:
            let start = Int.random(in: 0..<bytes.count, using: &generator)
            for index in start..<min(bytes.count, start + 4) { bytes[index] = 0xFF }
        case .wrongVersion:
            let offset =
                versionOffsets.isEmpty
                ? Int.random(in: 0..<bytes.count, using: &generator) : versionOffsets.randomElement(using: &generator)!
            if offset < bytes.count { bytes[offset] = bytes[offset] &+ UInt8.random(in: 1...9, using: &generator) }
        }
        return Data(bytes)
    }
}
