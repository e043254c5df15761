import Foundation
import Strata

/// `strata files ls [PREFIX]`: the keys of the file store, with `--long` their size, type and checksum.
struct FilesLsCommand: ToolCommand {
    static let longFlag = Flag("--long", "Show size, type and checksum.")
    static let configuration = CommandConfiguration(
        "ls", group: FilesCommands.name, summary: "List files (under a prefix).",
        usage: "files ls [PREFIX] --root DIR|--url s3://B/P [--long] [--json]", arguments: [FilesCommands.prefix],
        options: FilesAccess.options + [longFlag, JSONOutput.option])

    var prefix: String
    var access: FilesAccess
    var isLong: Bool
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        prefix = try arguments.value(FilesCommands.prefix) ?? ""
        access = try FilesAccess(parsing: &arguments)
        isLong = arguments.isSet(Self.longFlag)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        guard let files = try access.open(for: .read) else {
            if json { JSONOutput.print(.object(["files": .array([])])) }
            return
        }
        let keys = try files.list(prefix: prefix)
        if json {
            let listed = try keys.compactMap { try files.metadata($0).map(JSONOutput.file) }
            return JSONOutput.print(.object(["files": .array(listed)]))
        }
        for key in keys {
            if isLong, let meta = try files.metadata(key) {
                let checksum = meta.checksum.map { String(format: "%08x", $0) } ?? "-"
                print("\(meta.size)\t\(meta.contentType)\t\(checksum)\t\(key.escapedForDisplay)")
            } else {
                print(key.escapedForDisplay)
            }
        }
    }
}
