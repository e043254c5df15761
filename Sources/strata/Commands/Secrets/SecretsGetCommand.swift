import Foundation
import Strata

/// `strata secrets get SERVICE ACCOUNT`: an item's attributes, and its value only with `--show`.
struct SecretsGetCommand: ToolCommand {
    static let showFlag = Flag("--show", "Print the secret value itself.")
    static let configuration = CommandConfiguration(
        "get", group: SecretsCommands.name, summary: "Show an item; its value only with --show.",
        usage: "secrets get SERVICE ACCOUNT --root DIR [--show] [--json]",
        arguments: [SecretsCommands.service, SecretsCommands.account],
        options: SecretsAccess.options + [showFlag, JSONOutput.option])

    var service: String
    var account: String
    var access: SecretsAccess
    var shows: Bool
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        service = try arguments.value(SecretsCommands.service)
        account = try arguments.value(SecretsCommands.account)
        access = try SecretsAccess(parsing: &arguments)
        shows = arguments.isSet(Self.showFlag)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        guard let store = try access.openIfPresent(),
            let item = try store.attributes(service: service, account: account),
            let value = try store.get(service: service, account: account)
        else { throw SecretsCommands.noItem(service: service, account: account) }
        if json {
            guard case .object(var members) = JSONOutput.item(item) else { return }
            if shows { members["value"] = JSONOutput.bytes(value.data) }  // only when asked
            return JSONOutput.print(.object(members))
        }
        if shows {
            FileHandle.standardOutput.write(value.data)
            if value.stringValue != nil { print("") }
        } else {
            print(
                "\(item.service.escapedForDisplay)\t\(item.account.escapedForDisplay)\t\(item.accessibility.rawValue)\t"
                    + "\(value)\t(\(item.valueSize) bytes; --show prints it)")
        }
    }
}
