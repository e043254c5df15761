import Strata

/// `strata defaults import FILE`: sets every key of a property list file.
struct DefaultsImportCommand: ToolCommand {
    static let file = Argument("FILE", "A property list file, XML or binary.", completion: .path)
    static let configuration = CommandConfiguration(
        "import", group: DefaultsCommands.name, summary: "Set every key of a plist file (XML or binary).",
        usage: "defaults import FILE --root DIR [--suite S] [--create] [--json]", arguments: [file],
        options: DefaultsAccess.options + [StoreRoot.createFlag, JSONOutput.option])

    var file: String
    var access: DefaultsAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        file = try arguments.value(Self.file)
        access = try DefaultsAccess(parsing: &arguments, acceptsCreate: true)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let data = try InputFile.contents(file, tier: .defaults)
        let count = try access.open(for: .write).importData(data)
        if json { return JSONOutput.print(.object(["imported": .integer(Int64(count))])) }
        print("imported \(count) key(s)")
    }
}
