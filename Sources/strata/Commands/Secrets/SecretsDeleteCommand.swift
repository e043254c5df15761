import Strata

/// `strata secrets delete SERVICE ACCOUNT`: deletes an item.
struct SecretsDeleteCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "delete", group: SecretsCommands.name, summary: "Delete an item.",
        usage: "secrets delete SERVICE ACCOUNT --root DIR",
        arguments: [SecretsCommands.service, SecretsCommands.account],
        options: SecretsAccess.options, output: .nothing)

    var service: String
    var account: String
    var access: SecretsAccess

    init(parsing arguments: inout ParsedArguments) throws {
        service = try arguments.value(SecretsCommands.service)
        account = try arguments.value(SecretsCommands.account)
        access = try SecretsAccess(parsing: &arguments)
    }

    func run() throws {
        try StoreAccess.reportChanges(access.root)
        guard try access.open(for: .read).delete(service: service, account: account) else {
            throw SecretsCommands.noItem(service: service, account: account)
        }
    }
}
