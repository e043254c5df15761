import Strata

/// `strata defaults delete KEY`: removes a key.
struct DefaultsDeleteCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "delete", group: DefaultsCommands.name, summary: "Remove a key.",
        usage: "defaults delete KEY --root DIR [--suite S]", arguments: [DefaultsCommands.key],
        options: DefaultsAccess.options, output: .nothing)

    var key: String
    var access: DefaultsAccess

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(DefaultsCommands.key)
        access = try DefaultsAccess(parsing: &arguments)
    }

    func run() throws {
        try StoreAccess.reportChanges(access.root)
        guard try access.snapshot()[ExactString(key)] != nil, try access.open(for: .read).removeObject(forKey: key)
        else { throw DefaultsCommands.noValue(key) }
    }
}
