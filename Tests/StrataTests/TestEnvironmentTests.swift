import Foundation
import Testing

/// Every test target links into one test process, and the tests running in parallel there share its environment.
@Suite("Tests: the process environment they share")
struct TestEnvironmentTests {
    /// A variable a test sets (`setenv`) is named in that test's file only: no other test sets it to another value
    /// or reads it meanwhile. Two files once set `STRATA_TEST_SECRETS_KEY` to two keys, and the facade tests read it
    /// to unlock their secrets tier: `authentication-failed`, at random, most often on a loaded machine.
    @Test func eachVariableATestSetsIsNamedInOneFileOnly() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
        let files = (FileManager.default.enumerator(atPath: tests)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "found the test sources in \(tests)")
        let sources = try files.map { ($0, try String(contentsOfFile: tests + "/" + $0, encoding: .utf8)) }
        let setter = /setenv\(\s*"([A-Za-z0-9_]+)"/
        for (file, source) in sources {
            for name in Set(source.matches(of: setter).map { String($0.output.1) }) {
                let others = sources.filter { $0.0 != file && $0.1.contains("\"\(name)\"") }.map(\.0)
                #expect(others.isEmpty, "\(file) sets \(name), which \(others.sorted()) name too")
            }
        }
    }
}
