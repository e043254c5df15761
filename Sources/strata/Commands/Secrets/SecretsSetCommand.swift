import Foundation
import Strata

/// `strata secrets set SERVICE ACCOUNT`: stores a secret read from a file or standard input (never an argument,
/// which would show in `ps`).
struct SecretsSetCommand: ToolCommand {
    static let valueFileOption = Option(
        "--value-file", "FILE", "Read the value from FILE (else standard input).", completion: .path)
    static let labelOption = Option("--label", "L", "A label.")
    static let accessibilityOption = Option(
        "--accessibility", "A", "whenUnlocked (default), afterFirstUnlock, ...ThisDeviceOnly."
    ) { name in
        guard let found = SecretAccessibility(rawValue: name) else {
            throw UsageError("unknown accessibility '\(name)'")
        }
        return found
    }
    static let configuration = CommandConfiguration(
        "set", group: SecretsCommands.name, summary: "Store a secret read from --value-file, or from standard input.",
        usage: "secrets set SERVICE ACCOUNT --root DIR [--value-file FILE] [--label L] [--accessibility A] [--create]",
        arguments: [SecretsCommands.service, SecretsCommands.account],
        options: SecretsAccess.options + [StoreRoot.createFlag, valueFileOption, labelOption, accessibilityOption],
        output: .nothing)

    var service: String
    var account: String
    var access: SecretsAccess
    var valueFile: String?
    var label: String?
    var accessibility: SecretAccessibility

    init(parsing arguments: inout ParsedArguments) throws {
        service = try arguments.value(SecretsCommands.service)
        account = try arguments.value(SecretsCommands.account)
        access = try SecretsAccess(parsing: &arguments, acceptsCreate: true)
        valueFile = try arguments.value(Self.valueFileOption)
        label = try arguments.value(Self.labelOption)
        accessibility = try arguments.value(Self.accessibilityOption) ?? .whenUnlocked
    }

    func run() throws {
        let value =
            try valueFile.map { try InputFile.contents($0, tier: .secrets, key: account) }
            ?? FileHandle.standardInput.readDataToEndOfFile()
        try access.open(for: .write).set(
            Secret(value), service: service, account: account, label: label, accessibility: accessibility)
    }
}
