import Foundation
import StrataDefaults
import StrataTestSupport
import Testing

/// `strata verify` and `strata inspect` on a suite file that expands far beyond its bytes: reported as damaged,
/// quickly, instead of "sound" (verify) or a hang (anything that measured the value).
@Suite("strata CLI: hostile suite files")
struct VerifyHostileSuiteTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-plist") }

    /// `{"bomb": A12}`, `Ak` an array of 8 references to `Ak-1`: 8¹² leaves in under 200 bytes.
    static var bomb: Data {
        var table = BinaryPropertyList.ObjectTable()
        var previous = table.add(.integer(1))
        for _ in 0..<12 { previous = table.addArray(Array(repeating: previous, count: 8)) }
        let key = table.add(.string("bomb"))
        let top = table.addDictionary([(key, previous)])
        return table.encoded(top: top)
    }

    @Test func verifyReportsAReferenceBombAsDamaged() throws {
        let strata = try TestExecutables.url(named: "strata")
        #expect(
            try ChildProcess.run(strata, ["defaults", "set", "theme", "dark", "--root", root, "--create"]).status == 0)
        try Self.bomb.write(to: URL(fileURLWithPath: root + "/defaults/standard.plist"))
        let verify = try ChildProcess.run(strata, ["verify", root], environment: ["STRATA_ROOT": ""], timeout: 30)
        #expect(verify.status == 1)
        #expect(verify.standardOutput.contains("defaults/standard.plist"), "\(verify.standardOutput)")
        #expect(verify.standardOutput.contains("expanded"), "\(verify.standardOutput)")
        let inspect = try ChildProcess.run(strata, ["inspect", root], environment: ["STRATA_ROOT": ""], timeout: 30)
        #expect(inspect.standardOutput.contains("standard: UNREADABLE"), "\(inspect.standardOutput)")
    }
}
