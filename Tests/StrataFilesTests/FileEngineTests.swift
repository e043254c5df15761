import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataFiles

/// The shared bodies of the engine-neutral store API, run on every engine of `FileEngineKind.available`.
@Suite("FileStore: on every engine")
struct FileEngineTests {
    /// Under `CI=true` the shared bodies must run on S3 too: the test command starts the gateway.
    @Test func s3IsTestedInCI() {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(FileEngineKind.available.contains(.s3), "CI=true but STRATA_S3_URL is not set")
        }
    }

    @Test(arguments: FileEngineKind.available)
    func rangedReadsCutAtTheEndAndRefuseNegativeStarts(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        let content = pseudoRandom(300_000, seed: 21)
        try store.write(content, to: "ranged/a.bin")
        #expect(try store.read("ranged/a.bin", range: 0..<10) == content.prefix(10))
        #expect(try store.read("ranged/a.bin", range: 299_990..<400_000) == content.suffix(10))
        #expect(try store.read("ranged/a.bin", range: 5..<5).isEmpty)
        let negative = #expect(throws: StorageError.self) { try store.read("ranged/a.bin", range: -1..<4) }
        #expect(negative?.code == .invalidArgument)
        let missing = #expect(throws: StorageError.self) { try store.read("ranged/none.bin", range: 0..<4) }
        #expect(missing?.code == .notFound)
        #expect(store.name == store.engine.name)
    }
}
