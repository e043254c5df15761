import Strata

/// `strata defaults import FILE`: sets every key of a property list file.
struct DefaultsImportCommand: ToolCommand {
    static let file = Argument("FILE", "A property list file, XML or binary.", completion: .path)
    static let configuration = CommandConfiguration(
        "import", group: DefaultsCommands.name, summary: "Set every key of a plist file (XML or binary).",
        usage: "defaults import FILE --root DIR [--suite S] [--create]", arguments: [file],
        options: DefaultsAccess.options + [StoreRoot.createFlag])

    var file: String
    var access: DefaultsAccess

    init(parsing arguments: inout ParsedArguments) throws {
        file = try arguments.value(Self.file)
        access = try DefaultsAccess(parsing: &arguments, acceptsCreate: true)
    }

    func run() throws {
        let data = try InputFile.contents(file, tier: .defaults)
        print("imported \(try access.open(for: .write).importData(data)) key(s)")
    }
}
