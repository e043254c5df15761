import Strata

/// `strata files export PREFIX... --output FILE.zip|FILE.gz`: files as a zip archive, or one file gzipped, with
/// progress; Ctrl-C removes the unfinished archive.
struct FilesExportCommand: ToolCommand {
    static let prefixes = Argument(
        list: "PREFIX",
        "The start of the keys: photos/ for that folder, photos also for photos-old/...; without one, every file.",
        completion: .key(.files))
    static let outputOption = Option("--output", "FILE", "The archive.", completion: .path)
    static let configuration = CommandConfiguration(
        "export", group: FilesCommands.name,
        summary: "Export files as .zip (many) or .gz (one), by the output's extension.",
        usage: "files export [PREFIX...] --output FILE.zip|FILE.gz --root DIR|--url s3://B/P [--json]",
        arguments: [prefixes], options: FilesAccess.options + [outputOption, JSONOutput.option])

    var prefixes: [String]
    var access: FilesAccess
    var output: String
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        prefixes = try arguments.value(Self.prefixes)
        access = try FilesAccess(parsing: &arguments)
        guard let output = try arguments.value(Self.outputOption) else {
            throw UsageError("'--output FILE' is required")
        }
        self.output = output
        json = arguments.isSet(JSONOutput.option)
        if output.hasSuffix(".gz") {
            guard prefixes.count == 1 else { throw UsageError("expected one KEY for a .gz, got \(prefixes.count)") }
        } else if !output.hasSuffix(".zip") {
            throw UsageError("the output must end in .zip or .gz")
        }
    }

    func run() throws {
        guard let files = try access.open(for: .read) else { throw try access.noFiles() }
        let progress = ProgressReporter("export")
        let options = ExportOptions(
            progress: { progress.update(done: $0.bytesDone, total: $0.bytesTotal, entry: $0.currentKey) },
            isCancelled: { Interruption.isRequested })
        FilesCommands.removeStaleTemporaries(besides: output)
        if output.hasSuffix(".gz") {
            try checkGzipSource(prefixes[0], in: files)
            let size = try Interruption.trapping(Self.configuration.path, progress) {
                try files.exportGzip(prefixes[0], to: output, options: options)
            }
            report(entries: 1, bytes: size)
        } else {
            let result = try Interruption.trapping(Self.configuration.path, progress) {
                try files.exportZip(prefixes.isEmpty ? [""] : prefixes, to: output, options: options)
            }
            report(entries: result.entries, bytes: result.bytes, missingKeys: result.missingKeys)
        }
    }

    /// Prints what was written: `wrote FILE: …`, or with `--json` `{"output", "entries", "bytes", "missingKeys"}`;
    /// and, on standard error, a warning for each file another program deleted while the export ran (the archive is
    /// whole without them).
    private func report(entries: Int, bytes: Int, missingKeys: [String] = []) {
        for key in missingKeys {
            CommandLineTool.printError(
                "strata files export: warning: '\(key)' was deleted during the export; not archived")
        }
        if json {
            return JSONOutput.print(
                .object([
                    "output": .string(output), "entries": .integer(Int64(entries)), "bytes": .integer(Int64(bytes)),
                    "missingKeys": .array(missingKeys.map { .string($0) }),
                ]))
        }
        print("wrote \(output): " + (output.hasSuffix(".gz") ? "\(bytes) bytes" : "\(entries) entries, \(bytes) bytes"))
    }

    /// Refuses a `.gz` export of what is not one file: a folder is a usage error that points to `.zip`.
    private func checkGzipSource(_ key: String, in files: FileStore) throws {
        let folder = key.hasSuffix("/") ? key : key + "/"
        guard (try? files.exists(key)) != true, try !files.list(prefix: folder).isEmpty else { return }
        throw UsageError("'\(key)' is a folder, and a .gz holds one file: use .zip to export a folder")
    }
}
