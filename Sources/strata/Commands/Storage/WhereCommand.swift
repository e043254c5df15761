import Strata

/// `strata where KEY`: where a key lives (tier, backend, rule, kind, size, modified, content type).
struct WhereCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "where", summary: "Show where a key lives: tier, backend, rule, kind, size, modified.",
        usage: "where KEY --root DIR [--json]", arguments: [StorageCommands.key],
        options: [StoreRoot.option] + StorageAccess.keyOptions + [JSONOutput.option])

    var key: String
    var access: StorageAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(StorageCommands.key)
        access = try StorageAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        guard let location = try access.open(for: .read).location(of: key) else { throw StorageCommands.noValue(key) }
        if json { return JSONOutput.print(JSONOutput.location(location)) }
        print(StorageCommands.line(location))
    }
}
