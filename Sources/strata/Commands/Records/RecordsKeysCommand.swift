import Foundation
import Strata

/// `strata records keys [PREFIX]`: the values `Storage` keeps in the records tier's key-value table
/// (`storage.set(value, for: key)` of a structured value, `storage.put` routed to records), which are no
/// collection's records.
struct RecordsKeysCommand: ToolCommand {
    static let prefix = Argument(
        optional: "PREFIX", "The start of the keys to list, as Storage.keys(prefix:) matches; without one, every key.",
        completion: .key(.recordKeys))
    static let longFlag = Flag("--long", "Show each value's size and when it was last set.")
    static let configuration = CommandConfiguration(
        "keys", group: RecordsCommands.name,
        summary: "List the key-values Storage keeps in the records tier (not a collection's records).",
        usage: "records keys [PREFIX] --root DIR [--store NAME] [--long] [--json]",
        details:
            "A value put through Storage that routes to records (storage.set(value, for: key) of a Codable value) "
            + "is a row of the store's key-value table, beside the collections. 'strata get KEY' writes one's "
            + "value, 'strata where KEY' says where it lives and 'strata rm KEY' deletes it, as Storage does.",
        arguments: [prefix], options: RecordsAccess.options + [longFlag, JSONOutput.option])

    var prefix: String
    var access: RecordsAccess
    var isLong: Bool
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        prefix = try arguments.value(Self.prefix) ?? ""
        access = try RecordsAccess(parsing: &arguments)
        isLong = arguments.isSet(Self.longFlag)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let records = try access.openIfPresent()
        let keys = try records.map { try RecordsCommands.keyValueKeys(in: $0, prefix: prefix) } ?? []
        let described = isLong || json ? try keys.compactMap { try records?.metadata(for: $0) } : []
        if json { return JSONOutput.print(.object(["keyValues": .array(described.map(JSONOutput.keyValue))])) }
        if isLong {
            for meta in described {
                print(
                    "\(meta.key.escapedForDisplay)\t\(meta.size)\t"
                        + (meta.modificationDate.map { ISO8601DateFormatter().string(from: $0) } ?? "-"))
            }
        } else {
            for key in keys { print(key.escapedForDisplay) }
        }
    }
}
