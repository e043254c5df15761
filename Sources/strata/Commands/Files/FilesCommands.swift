import Strata

/// `strata files ...`: the group, and what its verbs share.
enum FilesCommands {
    static let name = "files"
    static let group = CommandGroup(
        name: name,
        summary: "The file store (a folder, or S3 with --url): list, copy in and out, archives, integrity.",
        commands: [
            FilesLsCommand.self, FilesStatCommand.self, FilesPutCommand.self, FilesGetCommand.self,
            FilesRmCommand.self, FilesExportCommand.self, FilesImportCommand.self, FilesVerifyCommand.self,
        ])

    static let key = Argument(
        "KEY", "The file's key: its path in the store (exports/report.pdf).", completion: .key(.files))
    static let prefix = Argument(
        optional: "PREFIX",
        "The start of the keys: photos/ for that folder, photos also for photos-old/...; without one, every file.",
        completion: .key(.files))

    /// The error for a key the file store holds no file for.
    static func noFile(_ key: String, recovery: String? = nil) -> StorageError {
        StorageError(.notFound, "there is no file with this key", tier: .files, key: key, recovery: recovery)
    }
}
