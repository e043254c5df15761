import Strata

/// `strata records query COLLECTION`: the records that match, as JSON Lines (or one JSON array).
struct RecordsQueryCommand: ToolCommand {
    static let whereOption = Option(
        "--where", "COND",
        "field OP value; OP is = (or ==) != < <= > >= ^= (prefix) ~= (contains); \"...\" for text; "
            + "ISO 8601 for dates. Repeatable.",
        repeatable: true
    ) { try WhereClause($0).predicate }
    static let sortOption = Option("--sort", "FIELDS", "Comma-separated fields; '-' for descending.") { text in
        text.split(separator: ",").map { part in
            part.hasPrefix("-")
                ? SortKey.descending(Field(String(part.dropFirst()))) : SortKey.ascending(Field(String(part)))
        }
    }
    static let limitOption = Option("--limit", "N", "At most N records.") { text in
        guard let number = Int(text), number >= 0 else { throw UsageError("--limit takes a whole number") }
        return number
    }
    static let configuration = CommandConfiguration(
        "query", group: RecordsCommands.name, summary: "Print matching records as JSON Lines.",
        usage: "records query COLLECTION --root DIR [--where 'age>=18']... [--sort age,-name] [--limit N] [--json]",
        arguments: [RecordsCommands.collection],
        options: RecordsAccess.options + [JSONOutput.option, whereOption, sortOption, limitOption])

    var collection: String
    var access: RecordsAccess
    var json: Bool
    var query: Query

    init(parsing arguments: inout ParsedArguments) throws {
        collection = try arguments.value(RecordsCommands.collection)
        access = try RecordsAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
        let predicates = try arguments.values(Self.whereOption)
        query = Query(
            predicates.isEmpty ? .all : .and(predicates), sort: try arguments.value(Self.sortOption) ?? [],
            limit: try arguments.value(Self.limitOption))
    }

    func run() throws {
        guard let records = try access.openIfPresent(), try records.collectionNames().contains(collection) else {
            throw RecordsCommands.noCollection(collection)
        }
        let stored = try records.collection(AnyRecord.self, named: collection)
        try StoredFields.check(query, in: stored)
        let found = try stored.fetch(query)
        if json { return JSONOutput.print(.array(found.map(\.body))) }
        for record in found { print(record.body.description) }
    }
}
