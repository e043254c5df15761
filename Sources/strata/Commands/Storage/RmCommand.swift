import Strata

/// `strata rm KEY`: a key deleted from every tier that holds it.
struct RmCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "rm", summary: "Delete a key from every tier that holds it.", usage: "rm KEY --root DIR",
        arguments: [StorageCommands.key], options: [StoreRoot.option] + StorageAccess.keyOptions,
        output: .nothing)

    var key: String
    var access: StorageAccess

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(StorageCommands.key)
        access = try StorageAccess(parsing: &arguments)
    }

    func run() throws {
        guard try access.open(for: .write).delete(key) else { throw StorageCommands.noValue(key) }
    }
}
