import Strata

/// `strata records list`: the collections and their counts.
struct RecordsListCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "list", group: RecordsCommands.name, summary: "List collections and their counts.",
        usage: "records list --root DIR [--store NAME] [--json]", options: RecordsAccess.options + [JSONOutput.option])

    var access: RecordsAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        access = try RecordsAccess(parsing: &arguments)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let records = try access.openIfPresent()
        let names = try records?.collectionNames() ?? []
        if json {
            let collections = try names.map { name -> JSONValue in
                let count = try records?.collection(AnyRecord.self, named: name).count() ?? 0
                return .object(["name": .string(name), "count": .integer(Int64(count))])
            }
            return JSONOutput.print(.object(["collections": .array(collections)]))
        }
        for name in names {
            print("\(name.escapedForDisplay)\t\(try records?.collection(AnyRecord.self, named: name).count() ?? 0)")
        }
    }
}
