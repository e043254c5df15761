import Strata

/// `strata defaults get KEY`: a key's value, as text or JSON.
struct DefaultsGetCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "get", group: DefaultsCommands.name, summary: "Print a key's value.",
        usage: "defaults get KEY --root DIR [--suite S] [--json]", arguments: [DefaultsCommands.key],
        options: DefaultsAccess.options + [JSONOutput.option])

    var key: String
    var access: DefaultsAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(DefaultsCommands.key)
        access = try DefaultsAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        guard let value = try access.snapshot()[ExactString(key)] else { throw DefaultsCommands.noValue(key) }
        if json { return JSONOutput.print(JSONOutput.entry(key, value)) }
        print(try DefaultsValueText.show(value))
    }
}
