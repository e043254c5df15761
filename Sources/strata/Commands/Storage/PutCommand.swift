import Foundation
import Strata

/// `strata put KEY [FILE] --kind KIND`: a value stored in the tier the selector picks (moved there if it lives
/// elsewhere); prints the tier, the rule that fired and why.
struct PutCommand: ToolCommand {
    static let kinds = DataKind.allCases.map(\.rawValue).joined(separator: ", ")
    static let file = Argument(
        optional: "FILE", "The file to read the value from ('-', or none: standard input).", completion: .path)
    static let kindOption = Option("--kind", "KIND", "What the value is: \(kinds).") { name in
        guard let kind = DataKind(rawValue: name) else {
            throw UsageError(
                "'\(name)' is not a kind; use one of \(kinds)"
                    + Suggestion.phrase(for: name, in: DataKind.allCases.map(\.rawValue)))
        }
        return kind
    }
    static let contentTypeOption = Option("--content-type", "TYPE", "Its media type (application/pdf, audio/wav).")
    static let sizeOption = Option(
        "--size", "BYTES", "What the selector is told of its size, when larger than the value itself."
    ) { text in
        guard let size = Int(text), size >= 0 else {
            throw UsageError("'--size' takes a number of bytes, got '\(text)'")
        }
        return size
    }
    static let configuration = CommandConfiguration(
        "put", summary: "Store a value in the tier the selector picks (moving it there if it lives elsewhere).",
        usage:
            "put KEY [FILE] --kind KIND --root DIR [--content-type TYPE] [--size BYTES] [--allow-plaintext] [--create] "
            + "[--json]",
        details:
            "The value is FILE's content, or standard input when FILE is '-' or absent. The selector's choice is "
            + "printed: the tier, the rule that fired and why.",
        arguments: [StorageCommands.key, file],
        options: [
            StoreRoot.option, kindOption, contentTypeOption, sizeOption, StorageCommands.allowPlaintextFlag,
            StoreRoot.createFlag,
        ] + StorageAccess.keyOptions + [JSONOutput.option])

    var key: String
    var file: String?
    var kind: DataKind
    var contentType: String?
    var size: Int?
    var allowsPlaintext: Bool
    var access: StorageAccess
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        key = try arguments.value(StorageCommands.key)
        file = try arguments.value(Self.file)
        guard let kind = try arguments.value(Self.kindOption) else {
            throw UsageError("'--kind KIND' is required (\(Self.kinds))")
        }
        self.kind = kind
        size = try arguments.value(Self.sizeOption)
        contentType = try arguments.value(Self.contentTypeOption)
        allowsPlaintext = arguments.isSet(StorageCommands.allowPlaintextFlag)
        access = try StorageAccess(parsing: &arguments, acceptsCreate: true)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let value: Data
        if let file, file != "-" {
            value = try InputFile.contents(file, key: key)
        } else {
            value = FileHandle.standardInput.readDataToEndOfFile()
        }
        let storage = try access.open(for: .write)
        let descriptor = DataDescriptor(
            kind: kind, estimatedSize: size ?? value.count, contentType: contentType, allowsPlaintext: allowsPlaintext)
        let selection = try storage.put(value, for: key, as: descriptor)
        if json {
            return JSONOutput.print(
                .object([
                    "key": .string(key), "tier": .string(selection.tier.rawValue), "rule": .string(selection.ruleID),
                    "reason": .string(selection.reason), "size": .integer(Int64(value.count)),
                ]))
        }
        print("\(key.escapedForDisplay) -> \(selection.tier.rawValue) (\(selection.ruleID)): \(selection.reason)")
    }
}
