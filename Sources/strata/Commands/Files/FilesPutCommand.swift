import Strata

/// `strata files put KEY FILE`: copies a file (or a pipe) into the store; Ctrl-C leaves the store unchanged.
struct FilesPutCommand: ToolCommand {
    static let file = Argument(
        "FILE", "The file to copy in (outside the store; a pipe works too).", completion: .path)
    static let configuration = CommandConfiguration(
        "put", group: FilesCommands.name, summary: "Copy a file into the store.",
        usage: "files put KEY FILE --root DIR|--url s3://B/P [--create]", arguments: [FilesCommands.key, file],
        options: FilesAccess.options + [StoreRoot.createFlag], output: .nothing)

    var key: String
    var file: String
    var access: FilesAccess

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(FilesCommands.key)
        file = try arguments.value(Self.file)
        access = try FilesAccess(parsing: &arguments, acceptsCreate: true)
    }

    func run() throws {
        let files = try access.open(for: .write)!  // A write always has a file tier (made if need be).
        let handle = try InputFile.handle(file, tier: .files, key: key)
        try Interruption.trapping(Self.configuration.path) { try FilesCommands.copyIn(handle, to: key, files: files) }
    }
}
