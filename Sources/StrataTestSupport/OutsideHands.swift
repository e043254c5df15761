public import Foundation
public import StrataCore
public import StrataDefaults
public import StrataRecords
import StrataSQLite
import StrataSystem

/// What something outside Strata does to a store's files — a person with `rm`, another program, a restore of one
/// folder from an old backup — so that tests can make the catalog and the tiers disagree the way the world does.
/// Nothing here goes through a tier store on the root, so no catalog hears of it.
public enum OutsideHands {
    /// Removes the files-tier file of `key` (`rm <root>/files/<key>`).
    public static func removeFile(_ key: String, root: String) throws {
        try FileManager.default.removeItem(atPath: root + "/files/" + key)
    }

    /// Writes `data` as the files-tier file of `key`, making its folders (`cp` into `<root>/files`).
    public static func writeFile(_ key: String, _ data: Data, root: String) throws {
        let path = root + "/files/" + key
        try FileManager.default.createDirectory(
            atPath: LocalPath(path).parent.string, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw StorageError(.io, "cannot write the file", path: path)
        }
    }

    /// The record store `<root>/records/<store>.sqlite` opened by its path, on no store root: another program
    /// using the database.
    public static func records(root: String, store: String = "main") throws -> RecordStore {
        try RecordStore(path: root + "/records/" + store + ".sqlite")
    }

    /// Rewrites the suite file `<root>/defaults/<suite>.plist` with `change` applied to its values (an editor, or
    /// `defaults write` on another machine's copy): a binary property list, replaced by rename.
    public static func editSuite(
        root: String, suite: String = "standard", _ change: (inout [ExactString: PropertyListValue]) -> Void
    ) throws {
        let path = root + "/defaults/" + suite + ".plist"
        var values: [ExactString: PropertyListValue] = [:]
        if let data = FileManager.default.contents(atPath: path),
            case .dictionary(let dictionary) = try PropertyListFormat.decode(data)
        {
            values = dictionary
        }
        change(&values)
        try PropertyListFormat.binary.encode(values).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Removes the whole secrets tier (`rm -rf <root>/secrets`): its keyrings and every item in them.
    public static func removeSecrets(root: String) throws {
        try FileManager.default.removeItem(atPath: root + "/secrets")
    }
}
