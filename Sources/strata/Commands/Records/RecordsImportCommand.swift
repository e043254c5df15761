import Strata

/// `strata records import COLLECTION FILE`: JSON Lines into a collection, all or nothing.
struct RecordsImportCommand: ToolCommand {
    static let file = Argument("FILE", "A JSON Lines file: one record per line.", completion: .path)
    static let replaceFlag = Flag("--replace", "Replace records whose id exists.")
    static let configuration = CommandConfiguration(
        "import", group: RecordsCommands.name, summary: "Import JSON Lines (all or nothing).",
        usage: "records import COLLECTION FILE --root DIR [--replace] [--create] [--json]",
        arguments: [RecordsCommands.collection, file],
        options: RecordsAccess.options + [replaceFlag, StoreRoot.createFlag, JSONOutput.option])

    var collection: String
    var file: String
    var access: RecordsAccess
    var replaces: Bool
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        collection = try arguments.value(RecordsCommands.collection)
        file = try arguments.value(Self.file)
        access = try RecordsAccess(parsing: &arguments, acceptsCreate: true)
        replaces = arguments.isSet(Self.replaceFlag)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let records = try access.open(for: .write)
        let count = try records.collection(AnyRecord.self, named: collection).importJSONLines(
            from: file, replacingExisting: replaces)
        if json {
            return JSONOutput.print(.object(["collection": .string(collection), "imported": .integer(Int64(count))]))
        }
        print("imported \(count) record(s)")
    }
}
