import Strata

/// `strata ls [PREFIX]`: the keys of every tier, sorted by their bytes; with `--long`, where each lives.
struct LsCommand: ToolCommand {
    static let prefix = Argument(
        optional: "PREFIX", "The start of the keys to list (exports/); without one, every key.",
        completion: .key(.storage))
    static let longFlag = Flag("--long", "Show where each key lives.")
    static let configuration = CommandConfiguration(
        "ls", summary: "List the keys of every tier, sorted.", usage: "ls [PREFIX] --root DIR [--long] [--json]",
        details:
            "PREFIX matches the start of a key, as Storage.keys(prefix:) does. A locked secrets tier is left out of "
            + "the listing, and said so.",
        arguments: [prefix], options: [StoreRoot.option, longFlag] + StorageAccess.keyOptions + [JSONOutput.option])

    var prefix: String
    var isLong: Bool
    var access: StorageAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        prefix = try arguments.value(Self.prefix) ?? ""
        isLong = arguments.isSet(Self.longFlag)
        access = try StorageAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let storage = try access.open(for: .read)
        let keys = try storage.keys(prefix: prefix)
        let locations = isLong ? try keys.compactMap { try storage.location(of: $0) } : []
        if json {
            let entries: [JSONValue] =
                isLong ? locations.map(JSONOutput.location) : keys.map { .object(["key": .string($0)]) }
            return JSONOutput.print(.object(["keys": .array(entries)]))
        }
        if isLong {
            for location in locations { print(StorageCommands.line(location)) }
        } else {
            for key in keys { print(key.escapedForDisplay) }
        }
    }
}
