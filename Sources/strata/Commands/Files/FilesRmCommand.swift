import Strata

/// `strata files rm KEY`: deletes a file (and its placement in the store's catalog).
struct FilesRmCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "rm", group: FilesCommands.name, summary: "Delete a file.", usage: "files rm KEY --root DIR|--url s3://B/P",
        arguments: [FilesCommands.key], options: FilesAccess.options, output: .nothing)

    var key: String
    var access: FilesAccess

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(FilesCommands.key)
        access = try FilesAccess(parsing: &arguments)
    }

    func run() throws {
        // It changes the store, which it opens only to read (a delete needs no --create).
        if try access.root.path() != nil { try StoreAccess.reportChanges(access.root) }
        guard let files = try access.open(for: .read, reportingChanges: true) else { throw try access.noFiles() }
        guard try files.delete(key) else {
            throw FilesCommands.noFile(key, recovery: "'strata files ls' lists the keys")
        }
    }
}
