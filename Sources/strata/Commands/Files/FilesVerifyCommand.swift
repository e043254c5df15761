import Strata

/// `strata files verify [PREFIX]`: every file's checksum recomputed; exit 1 for any problem.
struct FilesVerifyCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "verify", group: FilesCommands.name, summary: "Recompute checksums.",
        usage: "files verify [PREFIX] --root DIR|--url s3://B/P [--json]", arguments: [FilesCommands.prefix],
        options: FilesAccess.options + [JSONOutput.option])

    var prefix: String
    var access: FilesAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        prefix = try arguments.value(FilesCommands.prefix) ?? ""
        access = try FilesAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let problems = try access.open(for: .read)?.verify(prefix: prefix) ?? []
        let failures = problems.filter { $0.kind != .unrecorded }
        if json {
            JSONOutput.print(
                JSONOutput.verdict(
                    failures.map {
                        .object([
                            "key": .string($0.key), "kind": .string($0.kind.rawValue), "detail": .string($0.detail),
                        ])
                    }))
        } else {
            for problem in problems { print("\(problem)".escapedForDisplay) }
        }
        if !failures.isEmpty { throw Verdict.failed(problems.count, tier: .files) }
        if !json { print("ok") }
    }
}
