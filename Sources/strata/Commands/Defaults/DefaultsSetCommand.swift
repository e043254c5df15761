import Strata

/// `strata defaults set KEY VALUE`: sets a key, keeping the type of the value it holds unless `--type` names one; a
/// new key takes the type its text reads as (`1.5` a real), else a string.
struct DefaultsSetCommand: ToolCommand {
    static let value = Argument("VALUE", "The new value (its type: see --type).", isFreeForm: true)
    static let typeOption = Option(
        "--type", "TYPE",
        "The value's type. The default is the type of the key's value (JSON for a dictionary, an array or JSON data); "
            + "for a new key, the type the text reads as exactly (42 an integer, 1.5 a real, true or false a bool, "
            + "an ISO 8601 date-time a date), else string.", read: DefaultsValueText.typeName(named:))
    static let configuration = CommandConfiguration(
        "set", group: DefaultsCommands.name,
        summary: "Set a key (refuses credential-looking keys and oversize values).",
        usage: "defaults set KEY VALUE --root DIR [--suite S] [--type string|int|double|bool|date] [--create]",
        arguments: [DefaultsCommands.key, value],
        options: DefaultsAccess.options + [typeOption, StoreRoot.createFlag], output: .nothing)

    var key: String
    var value: String
    /// The property-list type `--type` names, if given.
    var typeName: String?
    var access: DefaultsAccess

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(DefaultsCommands.key)
        value = try arguments.value(Self.value)
        typeName = try arguments.value(Self.typeOption)
        access = try DefaultsAccess(parsing: &arguments, acceptsCreate: true)
    }

    func run() throws {
        // A value of the type --type names is read before the store is opened (or made, with --create).
        let typed = try typeName.map { try DefaultsValueText.value(value, key: key, typeName: $0, existing: nil) }
        let store = try access.open(for: .write)
        let stored =
            try typed
            ?? DefaultsValueText.value(
                value, key: key, typeName: nil, existing: store.object(forKey: key, includingRegistered: false))
        try store.set(stored, forKey: key)
        CommandLineTool.printError(try DefaultsValueText.note(key: key, value: stored))
    }
}
