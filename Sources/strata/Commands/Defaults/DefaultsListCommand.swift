import Strata

/// `strata defaults list`: every key and value of the suite, sorted by key.
struct DefaultsListCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "list", group: DefaultsCommands.name, summary: "Print every key and value.",
        usage: "defaults list --root DIR [--suite S] [--json]", options: DefaultsAccess.options + [JSONOutput.option])

    var access: DefaultsAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        access = try DefaultsAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let values = try access.snapshot()
        if json {
            let entries = values.keys.sorted().map { JSONOutput.entry($0.string, values[$0]!) }
            return JSONOutput.print(.object(["entries": .array(entries)]))
        }
        for key in values.keys.sorted(by: { $0.string < $1.string }) {
            print("\(key.string.escapedForDisplay) = \(try DefaultsValueText.show(values[key]!).escapedForDisplay)")
        }
    }
}
