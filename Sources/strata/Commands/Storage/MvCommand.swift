import Strata

/// `strata mv KEY TIER`: a key moved to another tier, whatever the selector would say.
struct MvCommand: ToolCommand {
    static let tier = Argument("TIER", "defaults, secrets, records or files.") { name in
        guard let tier = Tier(rawValue: name) else {
            let names = Tier.allCases.map(\.rawValue)
            throw UsageError(
                "'\(name)' is not a tier; use one of \(names.joined(separator: ", "))"
                    + Suggestion.phrase(for: name, in: names))
        }
        return tier
    }
    static let configuration = CommandConfiguration(
        "mv", summary: "Move a key to another tier, whatever the selector would say.",
        usage: "mv KEY TIER --root DIR [--allow-plaintext] [--json]", arguments: [StorageCommands.key, tier],
        options: [StoreRoot.option, StorageCommands.allowPlaintextFlag] + StorageAccess.keyOptions + [
            JSONOutput.option
        ])

    var key: String
    var tier: Tier
    var allowsPlaintext: Bool
    var access: StorageAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(StorageCommands.key)
        tier = try arguments.value(Self.tier)
        allowsPlaintext = arguments.isSet(StorageCommands.allowPlaintextFlag)
        access = try StorageAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let location = try access.open(for: .write).move(key, to: tier, allowingPlaintext: allowsPlaintext)
        if json { return JSONOutput.print(JSONOutput.location(location)) }
        print(StorageCommands.line(location))
    }
}
