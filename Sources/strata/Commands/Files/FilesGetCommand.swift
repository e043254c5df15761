import Foundation
import Strata

/// `strata files get KEY`: copies a file out, to `--output` (atomically; Ctrl-C leaves it unchanged) or to
/// standard output.
struct FilesGetCommand: ToolCommand {
    static let outputOption = Option("--output", "FILE", "Write to FILE.", completion: .path)
    static let configuration = CommandConfiguration(
        "get", group: FilesCommands.name, summary: "Copy a file out (to --output, else standard output).",
        usage: "files get KEY --root DIR|--url s3://B/P [--output FILE]", arguments: [FilesCommands.key],
        options: FilesAccess.options + [outputOption],
        output: .content("the file's bytes, or nothing with --output ('files stat --json' describes it)"))

    var key: String
    var access: FilesAccess
    var output: String?

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(FilesCommands.key)
        access = try FilesAccess(parsing: &arguments)
        output = try arguments.value(Self.outputOption)
    }

    func run() throws {
        guard let files = try access.open(for: .read) else { throw try access.noFiles() }
        if let output {
            FilesCommands.removeStaleTemporaries(besides: output)
            try Interruption.trapping(Self.configuration.path) {
                try FilesCommands.copyOut(key, to: output, files: files)
            }
        } else {
            try files.read(key) { FileHandle.standardOutput.write($0) }
        }
    }
}
