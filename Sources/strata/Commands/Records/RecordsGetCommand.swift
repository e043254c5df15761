import Strata

/// `strata records get COLLECTION ID`: one record, as JSON.
struct RecordsGetCommand: ToolCommand {
    static let id = Argument("ID", "The record's id (its \"id\" member).")
    static let configuration = CommandConfiguration(
        "get", group: RecordsCommands.name, summary: "Print one record as JSON.",
        usage: "records get COLLECTION ID --root DIR [--json]", arguments: [RecordsCommands.collection, id],
        options: RecordsAccess.options + [JSONOutput.option])

    var collection: String
    var id: String
    var access: RecordsAccess

    init(parsing arguments: inout ParsedArguments) throws {
        collection = try arguments.value(RecordsCommands.collection)
        id = try arguments.value(Self.id)
        access = try RecordsAccess(parsing: &arguments)
        _ = arguments.isSet(JSONOutput.option)  // The record is JSON either way.
    }

    func run() throws {
        guard let records = try access.openIfPresent(), try records.collectionNames().contains(collection),
            let record = try records.collection(AnyRecord.self, named: collection).get(id: id)
        else {
            throw StorageError(
                .notFound, "there is no record with this id", tier: .records, key: id,
                recovery: "List the ids with 'strata records query \(collection)'")
        }
        JSONOutput.print(record.body)
    }
}
