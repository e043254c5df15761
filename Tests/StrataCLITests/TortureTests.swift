import Foundation
import StrataTestSupport
import Testing

@Suite("strata-torture")
struct TortureTests {
    /// The bounded, seeded run: kills, contention, mixed writers, faults and hostile files for every tier, all clean.
    @Test func quickRunIsClean() throws {
        let result = try ChildProcess.run(try TestExecutables.url(named: "strata-torture"), ["--quick"], timeout: 600)
        #expect(result.status == 0, "\(result.standardOutput.suffix(3000))\n\(result.failureSummary)")
        let total = result.standardOutput.split(separator: "\n").first { $0.hasPrefix("total") }
        let columns = total?.split(separator: " ").map(String.init) ?? []
        #expect(columns.count == 8 && columns[4...] == ["0", "0", "0", "0"], "\(total ?? "no total line")")
        for scenario in ["kill", "contention", "mixed", "faults", "hostile"] {
            #expect(result.standardOutput.contains("\n\(scenario) "), "missing \(scenario)")
        }
    }
}
