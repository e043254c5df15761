import Strata

/// `strata secrets list`: the items' attributes, never a value.
struct SecretsListCommand: ToolCommand {
    static let serviceOption = Option("--service", "S", "Only this service.")
    static let configuration = CommandConfiguration(
        "list", group: SecretsCommands.name, summary: "List items (attributes only).",
        usage: "secrets list --root DIR [--service S] [--json]",
        options: SecretsAccess.options + [serviceOption, JSONOutput.option])

    var access: SecretsAccess
    var service: String?
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        access = try SecretsAccess(parsing: &arguments)
        service = try arguments.value(Self.serviceOption)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let items = try access.openIfPresent()?.items(service: service) ?? []
        if json { return JSONOutput.print(.object(["items": .array(items.map(JSONOutput.item))])) }
        for item in items {
            print(
                "\(item.service.escapedForDisplay)\t\(item.account.escapedForDisplay)\t\(item.accessibility.rawValue)\t"
                    + "\(item.valueSize) bytes\t\(item.label.escapedForDisplay)")
        }
    }
}
