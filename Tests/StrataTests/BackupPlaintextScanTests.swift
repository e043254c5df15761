import Foundation
import Strata
import StrataTestSupport
import Testing

/// A whole store backed up: no byte of the repository holds a key name, a value, a file or suite name, or the
/// store's root in plaintext, whatever tier it lives in.
@Suite("Storage backup: no plaintext in the repository")
struct BackupPlaintextScanTests {
    @Test("a byte scan of the repository finds no key name, value, suite or root of any tier")
    func byteScanOfAStoreBackup() throws {
        let directory = try TemporaryDirectory(prefix: "strata-backup-scan")
        let root = directory.appending("hushroot-7f3a")
        let storage = try openStorage(root)
        var needles = ["hushroot-7f3a"]
        for (tier, descriptor) in descriptorForTier {
            let key = "quietsuite-\(tier)/payroll-\(tier)-name"
            let value = "launchcode-\(tier)-" + String(repeating: "9731-ALPHA-", count: 40)
            try storage.put(Data(value.utf8), for: key, as: descriptor)
            needles += [key, "payroll-\(tier)-name", "quietsuite-\(tier)", "launchcode-\(tier)"]
        }
        try storage.backend(for: .defaults).flush()
        let repository = try BackupRepository.create(
            at: directory.appending("repo"), key: .passphrase("pass phrase", cost: .minimumForTests))
        try storage.backup(to: repository)
        // The scan can see them: the store itself holds some in the clear (its catalog's key names).
        #expect(try files(in: root).contains { $0.1.range(of: Data("payroll-".utf8)) != nil })
        let scanned = try files(in: directory.appending("repo"))
        for (relative, bytes) in scanned {
            for needle in needles {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(relative) holds '\(needle)' in plaintext")
                #expect(!relative.contains(needle), "a file name holds '\(needle)'")
            }
        }
        #expect(scanned.reduce(0) { $0 + $1.1.count } > 4096)
    }

    /// Every regular file under `folder`: its relative path and bytes.
    private func files(in folder: String) throws -> [(String, Data)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
        var found: [(String, Data)] = []
        for case let relative as String in enumerator {
            let full = folder + "/" + relative
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            found.append((relative, try Data(contentsOf: URL(fileURLWithPath: full))))
        }
        return found
    }
}
