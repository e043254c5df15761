import Foundation
import Strata
import StrataTestSupport
import Testing

/// Suite, keyring and record-store names are plain names, from an option or from `strata.conf`: a path (`..`, `/`) or a
/// control character is refused, so no verb reaches another store's files through a name.
@Suite("strata CLI: names are plain names")
struct NameOptionTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-names")
        #expect(try strata(["defaults", "set", "k", "v", "--root", root, "--create"]).status == 0)
        // Another store beside this one, whose record store a path could reach.
        let other = try Storage(root: directory.appending("other"))
        try other.records.put(Data("theirs".utf8), for: "x")
    }

    @Test(arguments: [
        ["records", "list", "--store", "../../other/records/main"],
        ["records", "list", "--store", "a/b"],
        ["records", "list", "--store", ".."],
        ["defaults", "list", "--suite", "../x"],
        ["defaults", "set", "a", "b", "--suite", "x\u{7}"],
        ["secrets", "list", "--keyring", "../default"],
    ])
    func aNameThatIsAPathIsAUsageError(_ arguments: [String]) throws {
        let result = try strata(arguments + ["--root", root])
        #expect(result.status == 2, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardError.contains("is not a plain name"), "\(result.standardError)")
    }

    @Test(arguments: [
        "[records]\nstore = ../../other/records/main", "[defaults]\nsuite = a/b", "[secrets]\nkeyring = ..",
    ])
    func aConfigurationNamingAPathIsRefusedNamingTheLine(_ settings: String) throws {
        try Data(("version = 1\n" + settings + "\n").utf8).write(to: URL(fileURLWithPath: root + "/strata.conf"))
        let error = #expect(throws: StorageError.self) { try StoreConfiguration.read(from: StoragePaths(root: root)) }
        #expect(error?.code == .corrupt && error?.line == 3, "\(String(describing: error))")
        #expect(error?.message.contains("is not a plain name") == true)
        let result = try strata(["records", "list", "--root", root])
        #expect(result.status == 1 && result.standardError.contains("strata.conf"), "\(result.standardError)")
    }
}
