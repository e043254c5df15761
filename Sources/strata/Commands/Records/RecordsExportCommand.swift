import Strata

/// `strata records export COLLECTION --output FILE`: a collection as JSON Lines.
struct RecordsExportCommand: ToolCommand {
    static let outputOption = Option("--output", "FILE", "The JSON Lines file.", completion: .path)
    static let configuration = CommandConfiguration(
        "export", group: RecordsCommands.name, summary: "Write a collection as JSON Lines.",
        usage: "records export COLLECTION --output FILE --root DIR [--json]", arguments: [RecordsCommands.collection],
        options: RecordsAccess.options + [outputOption, JSONOutput.option])

    var collection: String
    var access: RecordsAccess
    var output: String
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        collection = try arguments.value(RecordsCommands.collection)
        access = try RecordsAccess(parsing: &arguments)
        guard let output = try arguments.value(Self.outputOption) else {
            throw UsageError("'--output FILE' is required")
        }
        self.output = output
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        // A collection the store lacks is not-found, never made (the store is open only to read).
        guard let records = try access.openIfPresent(), try records.collectionNames().contains(collection) else {
            throw RecordsCommands.noCollection(collection)
        }
        let count = try records.collection(AnyRecord.self, named: collection).exportJSONLines(to: output)
        if json {
            return JSONOutput.print(
                .object([
                    "collection": .string(collection), "output": .string(output), "exported": .integer(Int64(count)),
                ]))
        }
        print("exported \(count) record(s) to \(output)")
    }
}
