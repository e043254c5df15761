import Foundation
import Strata

/// `strata files stat KEY`: a file's size, type, checksum and modification time.
struct FilesStatCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "stat", group: FilesCommands.name, summary: "Show a file's size, type, checksum and dates.",
        usage: "files stat KEY --root DIR|--url s3://B/P [--json]", arguments: [FilesCommands.key],
        options: FilesAccess.options + [JSONOutput.option])

    var key: String
    var access: FilesAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(FilesCommands.key)
        access = try FilesAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        guard let files = try access.open(for: .read) else { throw try access.noFiles() }
        guard let meta = try files.metadata(key) else { throw FilesCommands.noFile(key) }
        if json { return JSONOutput.print(JSONOutput.file(meta)) }
        print("key:          \(meta.key.escapedForDisplay)")
        print("size:         \(meta.size) bytes")
        print("content type: \(meta.contentType)")
        print("checksum:     \(meta.checksum.map { String(format: "%08x", $0) } ?? "none recorded")")
        print("modified:     \(meta.modificationDate.formatted(.iso8601))")
    }
}
