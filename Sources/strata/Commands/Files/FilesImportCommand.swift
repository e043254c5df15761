import Strata

/// `strata files import ARCHIVE`: a zip archive's entries (or one gzipped file) into the store, refusing hostile
/// archives, with progress; Ctrl-C leaves the store as it was.
struct FilesImportCommand: ToolCommand {
    static let archive = Argument(
        "ARCHIVE", "A .zip archive, or a .gz file (then --key says where it goes).", completion: .path)
    static let intoOption = Option("--into", "PREFIX", "Where zip entries go.")
    static let keyOption = Option("--key", "KEY", "Where a .gz goes.")
    static let configuration = CommandConfiguration(
        "import", group: FilesCommands.name, summary: "Import a .zip (or a .gz to --key), refusing hostile archives.",
        usage: "files import ARCHIVE --root DIR|--url s3://B/P [--into PREFIX] [--key KEY] [--create] [--json]",
        arguments: [archive],
        options: FilesAccess.options + [intoOption, keyOption, StoreRoot.createFlag, JSONOutput.option])

    var archive: String
    var access: FilesAccess
    var prefix: String
    /// Where a `.gz` goes (required for one).
    var key: String?
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        archive = try arguments.value(Self.archive)
        access = try FilesAccess(parsing: &arguments, acceptsCreate: true)
        prefix = try arguments.value(Self.intoOption) ?? ""
        key = try arguments.value(Self.keyOption)
        json = arguments.isSet(JSONOutput.option)
        if archive.hasSuffix(".gz"), key == nil { throw UsageError("a .gz import needs --key KEY") }
    }

    func run() throws {
        let files = try access.open(for: .write)!  // A write always has a file tier (made if need be).
        let progress = ProgressReporter("import")
        let options = ImportOptions(
            progress: { progress.update(done: $0.bytesDone, total: $0.bytesTotal, entry: $0.currentKey) },
            isCancelled: { Interruption.isRequested })
        if let key, archive.hasSuffix(".gz") {
            try Interruption.trapping(Self.configuration.path, progress) {
                try files.importGzip(from: archive, to: key, options: options)
            }
            if json { return JSONOutput.print(.object(["imported": .integer(1), "keys": .array([.string(key)])])) }
            print("imported \(key.escapedForDisplay)")
        } else {
            let keys = try Interruption.trapping(Self.configuration.path, progress) {
                try files.importZip(from: archive, into: prefix, options: options)
            }
            if json {
                return JSONOutput.print(
                    .object(["imported": .integer(Int64(keys.count)), "keys": .array(keys.map { .string($0) })]))
            }
            print("imported \(keys.count) file(s)")
        }
    }
}
