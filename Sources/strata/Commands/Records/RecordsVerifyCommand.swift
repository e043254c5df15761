import Strata

/// `strata records verify`: the record store's integrity (SQLite's `integrity_check`, PostgreSQL's table shapes).
struct RecordsVerifyCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "verify", group: RecordsCommands.name,
        summary: "Check the store's integrity (SQLite's integrity_check; PostgreSQL's table shapes).",
        usage: "records verify --root DIR [--store NAME] [--json]", options: RecordsAccess.options + [JSONOutput.option]
    )

    var access: RecordsAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        access = try RecordsAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let problems = try access.openIfPresent()?.verify() ?? []
        if json {
            JSONOutput.print(JSONOutput.verdict(problems.map { .string($0) }))
        } else {
            for problem in problems { print(problem.escapedForDisplay) }
        }
        if !problems.isEmpty { throw Verdict.failed(problems.count, tier: .records) }
        if !json { print("ok") }
    }
}
