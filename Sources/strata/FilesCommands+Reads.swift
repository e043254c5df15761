import Foundation
import Strata

extension FilesCommands {
    /// A read verb on a store that has no file tier yet: nothing to list or check, nothing to copy out; the tier
    /// folder is not created for it.
    static func runWithoutFiles(_ spec: CommandSpec, _ parsed: ParsedArguments) throws {
        switch spec.name {
        case "ls", "verify":
            _ = try parsed.optionalPositional("PREFIX")
            if parsed.has("--json") {
                JSONOutput.print(spec.name == "ls" ? .object(["files": .array([])]) : JSONOutput.verdict([]))
            } else if spec.name == "verify" {
                print("ok")
            }
        default:
            throw StorageError(
                .notFound, "the store has no files yet", tier: .files,
                path: try StoreAccess.paths(parsed, for: .read).directoryPath(for: .files),
                recovery: "Add one with 'strata files put KEY FILE'")
        }
    }

    /// Refuses a `.gz` export of what is not one file: a folder is a usage error that points to `.zip`.
    static func checkGzipSource(_ key: String, in files: FileStore) throws {
        guard (try? files.exists(key)) != true, try !files.list(prefix: key).isEmpty else { return }
        throw UsageError("'\(key)' is a folder, and a .gz holds one file: use .zip to export a folder")
    }
}
