/// `strata version`: the tool's version, as `strata --version` prints it.
struct VersionCommand: ToolCommand {
    static let configuration = CommandConfiguration("version", summary: "Print the version.", usage: "version")

    init(parsing arguments: inout ParsedArguments) throws {}

    func run() throws {
        print(CommandLineTool.version)
    }
}
