import Foundation
import Strata

/// `strata defaults export`: the suite as a property list, XML on standard output or either format to a file.
struct DefaultsExportCommand: ToolCommand {
    static let binaryFlag = Flag("--binary", "Binary plist (bplist00).")
    static let outputOption = Option("--output", "FILE", "Write to FILE.", completion: .path)
    static let configuration = CommandConfiguration(
        "export", group: DefaultsCommands.name, summary: "Print the suite as a plist (XML, or binary to a file).",
        usage: "defaults export --root DIR [--suite S] [--binary --output FILE]",
        options: DefaultsAccess.options + [binaryFlag, outputOption],
        output: .content(
            "the suite as an XML property list, or nothing with --output ('defaults list --json' gives JSON)"))

    var access: DefaultsAccess
    var isBinary: Bool
    var output: String?

    init(parsing arguments: inout ParsedArguments) throws {
        access = try DefaultsAccess(parsing: &arguments)
        isBinary = arguments.isSet(Self.binaryFlag)
        output = try arguments.value(Self.outputOption)
        guard output != nil || !isBinary else { throw UsageError("a binary export needs --output FILE") }
    }

    func run() throws {
        let data = (isBinary ? PropertyListFormat.binary : .xml).encode(try access.snapshot())
        if let output {
            try AtomicFile.write(data, to: output)  // 0600: store content stays private
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}
