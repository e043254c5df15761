import Strata

/// `strata records list`: the collections and their counts, and how many values `Storage` keeps in the records
/// tier's key-value table (listed by `records keys`).
struct RecordsListCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "list", group: RecordsCommands.name, summary: "List collections and their counts, and the Storage key-values.",
        usage: "records list --root DIR [--store NAME] [--json]",
        details:
            "Each collection prints as NAME and its count. Values put through Storage that route to records are no "
            + "collection's records: they are rows of the store's key-value table, counted on a last line "
            + "'\(RecordsCommands.keyValuesLabel) N' when there are any ('strata records keys' lists them).",
        options: RecordsAccess.options + [JSONOutput.option])

    var access: RecordsAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        access = try RecordsAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let records = try access.openIfPresent()
        let names = try records?.collectionNames() ?? []
        let counts = try names.map { try records?.collection(AnyRecord.self, named: $0).count() ?? 0 }
        let keyValueCount = try records?.keys().count ?? 0
        if json {
            let collections = zip(names, counts).map { name, count -> JSONValue in
                .object(["name": .string(name), "count": .integer(Int64(count))])
            }
            return JSONOutput.print(
                .object(["collections": .array(collections), "keyValueCount": .integer(Int64(keyValueCount))]))
        }
        for (name, count) in zip(names, counts) { print("\(name.escapedForDisplay)\t\(count)") }
        if keyValueCount > 0 { print("\(RecordsCommands.keyValuesLabel)\t\(keyValueCount)") }
    }
}
