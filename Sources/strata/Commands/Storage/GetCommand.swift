import Foundation
import Strata

/// `strata get KEY`: a key's value, from whichever tier holds it.
struct GetCommand: ToolCommand {
    static let outputOption = Option(
        "--output", "FILE", "Write it to FILE (mode 0600), else to standard output.", completion: .path)
    static let configuration = CommandConfiguration(
        "get", summary: "Write a key's value, from whichever tier holds it.",
        usage: "get KEY --root DIR [--output FILE]",
        arguments: [StorageCommands.key], options: [StoreRoot.option, outputOption] + StorageAccess.keyOptions,
        output: .content("the value's bytes as stored, or nothing with --output ('where --json' describes the key)"))

    var key: String
    var output: String?
    var access: StorageAccess

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(StorageCommands.key)
        output = try arguments.value(Self.outputOption)
        access = try StorageAccess(parsing: &arguments)
    }

    func run() throws {
        guard let value = try access.open(for: .read).data(for: key) else { throw StorageCommands.noValue(key) }
        if let output {
            try AtomicFile.write(value, to: output)
        } else {
            FileHandle.standardOutput.write(value)
        }
    }
}
