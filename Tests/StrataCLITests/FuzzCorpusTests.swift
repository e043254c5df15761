import Foundation
import StrataTestSupport
import Testing

/// Replays the committed fuzz corpus (seeds and the inputs that once crashed) through a normal build of the
/// fuzz targets, so every fixed finding stays fixed.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz").path

    @Test(arguments: [
        "archive", "sealed-item", "json-lines", "record-body", "path-mapping", "plist", "backup-metadata",
        "store-configuration",
    ])
    func corpusReplaysWithoutACrash(_ target: String) throws {
        let folder = Self.corpus + "/" + target
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(!inputs.isEmpty)
        let result = try ChildProcess.run(try TestExecutables.url(named: "strata-fuzz"), [target, folder])
        #expect(result.status == 0, "\(result.standardError.suffix(2000))")
        #expect(result.standardOutput == "\(target): replayed \(inputs.count) input(s) without a crash\n")
    }
}
