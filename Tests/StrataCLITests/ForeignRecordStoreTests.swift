import Foundation
import StrataTestSupport
import Testing

/// `strata verify` and `strata inspect` on a root whose `records/` holds a file that is not a sound Strata store:
/// the real binary reports it with the right code and leaves it byte-for-byte unchanged.
@Suite("strata CLI: foreign record files")
struct ForeignRecordStoreTests {
    @Test(arguments: ForeignRecordFile.allCases)
    func verifyAndInspectReportWithoutChanging(_ kind: ForeignRecordFile) throws {
        let root = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root.appending("records"), withIntermediateDirectories: true)
        let path = root.appending("records/x.sqlite")
        try kind.write(to: path, seed: 7)
        let before = ForeignRecordFile.snapshot(path)
        let strata = try TestExecutables.url(named: "strata")

        let verify = try ChildProcess.run(strata, ["verify", root.path])
        #expect(verify.status == 1, "\(verify.standardOutput)\(verify.standardError)")
        #expect(
            verify.standardOutput.contains("records/x.sqlite: \(kind.expectedCode): "), "\(verify.standardOutput)")
        #expect(ForeignRecordFile.snapshot(path) == before, "verify changed \(kind)")

        let inspect = try ChildProcess.run(strata, ["inspect", root.path])
        #expect(inspect.status == 0, "\(inspect.standardError)")
        #expect(inspect.standardOutput.contains("x: UNREADABLE: \(kind.expectedCode): "), "\(inspect.standardOutput)")
        #expect(ForeignRecordFile.snapshot(path) == before, "inspect changed \(kind)")

        let records = try ChildProcess.run(strata, ["records", "verify", "--root", root.path, "--store", "x"])
        #expect(records.status == 1)
        #expect(records.standardError.contains("\(kind.expectedCode)"), "\(records.standardError)")
        #expect(ForeignRecordFile.snapshot(path) == before, "records verify changed \(kind)")
    }

    @Test func verifyNeverCreatesAStoreInAnEmptyFile() throws {
        let root = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root.appending("records"), withIntermediateDirectories: true)
        let path = root.appending("records/empty.sqlite")
        try Data().write(to: URL(fileURLWithPath: path))
        let strata = try TestExecutables.url(named: "strata")
        #expect(try ChildProcess.run(strata, ["verify", root.path]).status == 0)
        #expect(try ChildProcess.run(strata, ["inspect", root.path]).standardOutput.contains("empty: no collections"))
        #expect(ForeignRecordFile.snapshot(path) == [Data(), nil, nil, nil])
    }
}
