import Foundation
import Strata
import StrataTestSupport
import Testing

/// A value that becomes a credential leaves no plaintext anywhere under the store root: not in the defaults suite
/// (nor a backup or temporary of it), not in the records database's freed pages or its write-ahead log, not in
/// the old file of the files tier (overwritten before it is unlinked, so a second link to it holds no plaintext).
///
/// The PostgreSQL records engine keeps its data outside the root, in the server's files; it is out of scope here.
@Suite("Storage: no plaintext of a moved credential under the root")
struct StorageSecureRemovalTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-storage-secure")
    }

    /// The files under the root, and the byte offsets, where `marker` occurs.
    func leaks(of marker: String) -> [String] {
        filesUnder(root).filter { $0.data.range(of: Data(marker.utf8)) != nil }.map(\.path)
    }

    /// For each tier a value can be in before it becomes a credential: a recognisable plaintext is put there,
    /// surrounded by neighbours that stay, made durable (so it is on disk), then put again as a credential, by the
    /// same store or after a reopen (when the records tier has checkpointed it from its write-ahead log into the
    /// database file).
    @Test(arguments: [(Tier.defaults, false), (.records, false), (.records, true), (.files, false), (.files, true)])
    func aValueThatBecomesACredentialLeavesNoPlaintext(_ tier: Tier, _ reopening: Bool) throws {
        let marker = "PLAINTEXT-\(tier.rawValue.uppercased())-7f3a91bc"
        // Larger than a database page, so the records tier spills it into overflow pages that are freed whole.
        let value = Data((marker + String(repeating: "-", count: 6_000) + marker).utf8)
        var storage = try openStorage(root)
        // Neighbours in the same tier, so the value shares a suite file, a database page, a folder.
        for index in 0..<20 {
            try storage.put(Data("neighbour-\(index)".utf8), for: "n/\(index)", as: descriptorForTier[tier]!)
        }
        try storage.put(value, for: "session", as: descriptorForTier[tier]!)
        try storage.backend(for: tier).flush()
        if reopening {
            storage = try openStorage(root)  // The last connection to the database closes: it is checkpointed.
            if tier == .records { #expect(!leaks(of: marker).contains { $0.hasSuffix(".sqlite-wal") }) }
        }
        #expect(!leaks(of: marker).isEmpty, "the plaintext never reached the disk: the test proves nothing")
        // A second name for the files tier's file (a backup tool's hard link): it must not keep the plaintext.
        let link = directory.appending("link")
        if tier == .files { try FileManager.default.linkItem(atPath: root + "/files/session", toPath: link) }

        try storage.put(value, for: "session", as: descriptorForTier[.secrets]!)

        #expect(try storage.data(for: "session") == value)
        #expect(try tiersHolding("session", in: storage) == [.secrets])
        #expect(leaks(of: marker).isEmpty, "the plaintext is still in \(leaks(of: marker))")
        if tier == .files {
            let linked = try Data(contentsOf: URL(fileURLWithPath: link))
            #expect(linked.range(of: Data(marker.utf8)) == nil, "the old file was unlinked, not overwritten")
        }
        // The neighbours are intact, and a fresh process reads them.
        let reopened = try openStorage(root)
        for index in 0..<20 { #expect(try reopened.data(for: "n/\(index)") == Data("neighbour-\(index)".utf8)) }
        // Nothing was left beside the tiers' files: no atomic-write temporary, no backup.
        let leftovers = filesUnder(root).map { URL(fileURLWithPath: $0.path).lastPathComponent }.filter {
            $0.hasPrefix(AtomicFile.temporaryPrefix) || $0.hasSuffix(".bak") || $0.hasSuffix("~")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// Another process has just put a preference (its defaults tier writes the suite after a short delay), and
    /// this one makes it a credential at once. The other process's delayed write must not bring the plaintext
    /// back into the suite.
    @Test func aPendingPreferenceElsewhereDoesNotComeBack() throws {
        let marker = "PENDING-PLAINTEXT-5d1e"
        let storage = try openStorage(root)
        try storage.put(Data("x".utf8), for: "other", as: descriptorForTier[.defaults]!)
        try storage.backend(for: .defaults).flush()
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["storage-put-wait", root, "session", marker],
            environment: ["STRATA_SECRETS_KEY": testSecretsKeyHex])
        _ = try child.waitForLine(timeout: 60) { $0 == "put" }
        // At once: most often within the other process's write delay (50 ms), before its suite holds the value.
        try storage.put(Data(marker.utf8), for: "session", as: descriptorForTier[.secrets]!)
        #expect(child.wait().status == 0)
        #expect(try storage.location(of: "session")?.tier == .secrets)
        #expect(leaks(of: marker).isEmpty, "the plaintext came back in \(leaks(of: marker))")
        #expect(try storage.verifyCatalog().isSound)
    }

    /// What another process does to a key while this one's write of it is still pending (coalesced): the late write
    /// must not bring the value back. Deterministic: the other process writes only once this one is done.
    enum ChangeElsewhere: String, CaseIterable, Sendable {
        case moveToSecrets, moveToFiles, delete
    }

    /// `existing`: the key was already a preference (the other process's put stays in its tier), else it is new.
    @Test(arguments: ChangeElsewhere.allCases, [false, true])
    func aLateWriteOfAPreferenceChangedElsewhereIsDropped(_ change: ChangeElsewhere, _ existing: Bool) throws {
        let marker = "LATE-PLAINTEXT-\(change.rawValue)-91c2"
        let storage = try openStorage(root)
        try storage.put(Data("x".utf8), for: "other", as: descriptorForTier[.defaults]!)
        if existing { try storage.put(Data("before".utf8), for: "session", as: descriptorForTier[.defaults]!) }
        try storage.backend(for: .defaults).flush()
        let go = directory.appending("go")
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["storage-put-late", root, "session", marker, go],
            environment: ["STRATA_SECRETS_KEY": testSecretsKeyHex])
        _ = try child.waitForLine(timeout: 60) { $0 == "put" }
        #expect(try storage.location(of: "session")?.tier == .defaults)
        switch change {
        case .moveToSecrets: try storage.put(Data("s3cr3t".utf8), for: "session", as: descriptorForTier[.secrets]!)
        case .moveToFiles:
            try storage.put(Data("%PDF".utf8), for: "session", as: descriptorForTier[.files]!)
        case .delete: _ = try storage.delete("session")
        }
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        _ = try child.waitForLine(timeout: 60) { $0 == "written" }
        #expect(child.wait().status == 0)
        let suite = try String(contentsOfFile: root + "/defaults/standard.plist", encoding: .isoLatin1)
        #expect(!suite.contains(marker), "the late write brought the value back into the suite")
        #expect(suite.contains("other"), "the late write lost a neighbour")
        let reopened = try openStorage(root)
        switch change {
        case .moveToSecrets: #expect(try reopened.data(for: "session") == Data("s3cr3t".utf8))
        case .moveToFiles: #expect(try reopened.data(for: "session") == Data("%PDF".utf8))
        case .delete: #expect(try reopened.data(for: "session") == nil)
        }
        #expect(
            try tiersHolding("session", in: reopened)
                == (change == .delete ? [] : [reopened.location(of: "session")!.tier]))
        #expect(leaks(of: marker).isEmpty, "the old value is in \(leaks(of: marker))")
        #expect(try reopened.verifyCatalog().isSound)
    }
}
