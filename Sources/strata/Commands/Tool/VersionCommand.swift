import Strata

/// `strata version`: the tool's version, as `strata --version` prints it.
struct VersionCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "version", summary: "Print the version.", usage: "version [--json]", options: [JSONOutput.option])

    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        if json { return JSONOutput.print(.object(["version": .string(CommandLineTool.version)])) }
        print(CommandLineTool.version)
    }
}
