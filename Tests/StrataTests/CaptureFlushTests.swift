import Foundation
import Strata
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

/// A capture first writes the preferences this process has coalesced (defaults writes after a delay), so that the
/// catalog it copies never names a value the capture of the defaults tier lacks. That flush's failure was
/// swallowed: the capture went on and held a catalog naming a preference its suite file did not have.
@Suite("Storage: a capture whose flush fails", .serialized)
struct CaptureFlushTests {
    @Test func aFailedFlushFailsTheCaptureAndTheNextOneHoldsTheValue() throws {
        let directory = try TemporaryDirectory(prefix: "strata-capture-flush")
        defer { FaultInjector.shared.reset() }
        let root = directory.appending("store")
        let storage = try openStorage(root)
        // The suite writes a minute late, so the set below is still pending when the capture starts.
        var late = Storage.defaultsConfiguration(storage.configuration)
        late.durability = .coalesced(.seconds(60))
        let (paths, configuration) = (storage.paths, late)
        storage.registry.register(.defaults, name: "plist") { _ in
            try DefaultsStore(suite: "standard", paths: paths, configuration: configuration)
        }
        try storage.set("kept", for: "flushed.before")
        try storage.set("early", for: "coalesced.only")
        try storage.backend(for: .defaults).flush()
        // A put that stays in defaults is written after the tier's delay (a new key is written before it is
        // recorded).
        try storage.set("late", for: "coalesced.only")
        FaultInjector.shared.inject(.error(ENOSPC), on: .rename, pathContaining: root + "/defaults")
        let failed = try FolderCapture(folder: directory.appending("failed"))
        let error = #expect(throws: StorageError.self) { try storage.capture(into: failed) }
        #expect(error?.code == .noSpace)
        FaultInjector.shared.reset()
        // Nothing stored is lost, and the next capture holds both preferences.
        #expect(try storage.value(String.self, for: "coalesced.only") == "late")
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let restored = directory.appending("restored")
        try Storage.restore(from: capture, to: restored, secretsKey: testSecretsKey)
        let reopened = try openStorage(restored)
        #expect(try reopened.value(String.self, for: "flushed.before") == "kept")
        #expect(try reopened.value(String.self, for: "coalesced.only") == "late")
    }
}
