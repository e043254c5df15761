import Foundation
import Strata
import StrataTestSupport
import Testing

/// The sample programs store everything through `Storage`: after a run, the store's own answer
/// (`location(of:)`) puts every value in the tier, and under the rule, the sample printed.
@Suite("Sample programs: placement through the facade")
struct SamplePlacementTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-sample-placement") }

    /// Runs a sample with the test passphrase.
    func run(_ sample: String, _ arguments: [String]) throws -> ChildProcess.Result {
        let result = try ChildProcess.run(
            try TestExecutables.url(named: sample),
            ["--root", root, "--output", directory.appending("out")] + arguments,
            environment: ["STRATA_PASSPHRASE": "pw"])
        #expect(result.status == 0, "\(result.standardError)")
        return result
    }

    /// The `key → (tier, rule)` pairs a sample printed as `label -> tier (Apple, rule R) as key`.
    func placements(in output: String) -> [String: (tier: String, rule: String)] {
        var placements: [String: (tier: String, rule: String)] = [:]
        for line in output.split(separator: "\n") where line.contains(" -> ") && line.contains(", rule ") {
            guard let arrow = line.range(of: " -> "), let rule = line.range(of: ", rule "),
                let close = line.range(of: ") as ", range: rule.upperBound..<line.endIndex)
            else { continue }
            let tier = line[arrow.upperBound...].prefix { $0 != " " }
            placements[String(line[close.upperBound...])] = (
                String(tier), String(line[rule.upperBound..<close.lowerBound])
            )
        }
        return placements
    }

    /// Every printed placement is where the store says the key is, and every key the store holds was printed.
    func expectPlacementsAgree(_ output: String, expected: [String: (Tier, String)]) throws {
        let printed = placements(in: output)
        let storage = try Storage(root: root, secretsKey: .passphrase("pw"))
        #expect(Set(printed.keys) == Set(try storage.keys()), "\(output)")
        for (key, placement) in printed {
            let location = try #require(try storage.location(of: key), "\(key)")
            #expect(location.tier.rawValue == placement.tier && location.ruleID == placement.rule, "\(key)")
            #expect(try Tier.allCases.filter { try storage.backend(for: $0).contains(key) } == [location.tier])
        }
        for (key, (tier, rule)) in expected {
            let location = try #require(try storage.location(of: key), "\(key)")
            #expect(location.tier == tier && location.ruleID == rule, "\(key): \(location)")
        }
    }

    @Test func pdfExporterPutsEveryValueThroughTheFacade() throws {
        let result = try run("pdf-exporter", ["--reports", "2"])
        try expectPlacementsAgree(
            result.standardOutput,
            expected: [
                "exports/reports/report-1.pdf": (.files, "file-to-files"),
                "exports/reports/report-2.pdf": (.files, "file-to-files"),
                "reports/report-1": (.records, "structured-to-records-coredata"),
                "reports/report-2": (.records, "structured-to-records-coredata"),
                "settings/lastExportFolder": (.defaults, "preference-to-defaults"),
            ])
        let storage = try Storage(root: root)
        let metadata = try #require(try storage.data(for: "reports/report-1"))
        #expect(String(decoding: metadata, as: UTF8.self).contains("\"title\":\"Quarterly report 1\""))
        #expect(try storage.location(of: "exports/reports/report-1.pdf")?.contentType == "application/pdf")
        #expect(try storage.data(for: "settings/lastExportFolder") == Data("exports/reports".utf8))
    }

    @Test func audioExporterPutsEveryValueThroughTheFacade() throws {
        let result = try run("audio-exporter", ["--recordings", "2"])
        try expectPlacementsAgree(
            result.standardOutput,
            expected: [
                "recordings/memo-1.wav": (.files, "file-to-files"),
                "recording-metadata/memo-2": (.records, "structured-to-records-coredata"),
                "uploads/audio-exporter": (.secrets, "sensitive-to-secrets"),
            ])
        #expect(result.standardOutput.contains("stored 2 recording(s) in files, 2 record(s) in records"))
        // The token is sealed: it is nowhere under the root in the clear.
        let storage = try Storage(root: root, secretsKey: .passphrase("pw"))
        let token = try #require(try storage.data(for: "uploads/audio-exporter"))
        #expect(String(decoding: token, as: UTF8.self).hasPrefix("upload-"))
        #expect(!filesUnder(root).contains { $0.data.range(of: token) != nil })
    }

    /// `--library DIR` imports a folder of the user's files, each where the selector says: a PDF and a WAV in
    /// files, JSON in records, a token in secrets, a small text in defaults, a 2 MiB text in files by the
    /// budget rule.
    @Test(arguments: ["pdf-exporter", "audio-exporter"])
    func libraryImportFollowsTheSelector(_ sample: String) throws {
        let library = directory.appending("library")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let contents: [String: Data] = [
            "scan.pdf": Data("%PDF-1.4 scan".utf8), "voice.wav": Data("RIFF....WAVE".utf8),
            "order.json": Data("{\"id\":1}".utf8), "api.token": Data("tok-3f9".utf8), "theme.txt": Data("dark".utf8),
            "notes.txt": Data(repeating: 0x6E, count: 2 << 20),
        ]
        for (name, data) in contents { try data.write(to: URL(fileURLWithPath: library + "/" + name)) }
        let result = try run(sample, ["--library", library])
        #expect(result.standardOutput.contains("imported 6 library item(s)"))
        try expectPlacementsAgree(
            result.standardOutput,
            expected: [
                "library/scan.pdf": (.files, "file-to-files"), "library/voice.wav": (.files, "file-to-files"),
                "library/order.json": (.records, "structured-to-records-coredata"),
                "library/api.token": (.secrets, "sensitive-to-secrets"),
                "library/theme.txt": (.defaults, "preference-to-defaults"),
                "library/notes.txt": (.files, "large-preference-to-files"),
            ])
        let storage = try Storage(root: root, secretsKey: .passphrase("pw"))
        for (name, data) in contents { #expect(try storage.data(for: "library/" + name) == data, "\(name)") }
    }
}
