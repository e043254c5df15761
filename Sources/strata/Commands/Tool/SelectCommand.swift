import Foundation
import Strata

/// `strata select`: asks the decision table where a value belongs, or prints the whole table.
struct SelectCommand: ToolCommand {
    static let kindOption = Option("--kind", "KIND", "preference, credential, structured, relational or file.") {
        text in
        guard let kind = DataKind(rawValue: text.lowercased()) else {
            let known = DataKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("unknown kind '\(text)'; use one of \(known)")
        }
        return kind
    }
    static let sizeOption = Option(
        "--size", "SIZE", "Estimated size: bytes, or with a unit (12KiB, 3MB, 2M).", read: parseSize)
    static let sensitiveFlag = Flag("--sensitive", "The value is sensitive (a token, a key) whatever its kind.")
    static let contentTypeOption = Option(
        "--content-type", "TYPE", "Media type of file-like data (application/pdf, audio/wav).")
    static let minimumOSOption = Option(
        "--min-os", "OS", "The app's minimum OS (iOS17, macOS14): SwiftData or CoreData.", read: minimumOS)
    static let flatFlag = Flag("--flat", "Structured data that is flat (a few fields, no nesting).")
    static let queriedFlag = Flag("--queried", "Structured data the app filters, sorts or joins.")
    static let valueLimitOption = Option(
        "--defaults-value-limit", "SIZE",
        "The largest preference defaults holds; larger go to files. The default is the store's, else 64KiB.",
        read: parseSize)
    static let budgetOption = Option(
        "--defaults-budget", "SIZE", "The old name of --defaults-value-limit.", read: parseSize)
    static let rootOption = Option(
        "--root", "DIR",
        "A store (or STRATA_ROOT): its configuration's thresholds, and the facts of the backend that would hold the "
            + "value.", completion: .path)
    static let tableFlag = Flag("--table", "Print the whole decision table and its rules.")
    static let configuration = CommandConfiguration(
        "select", summary: "Say which tier a value belongs in, by which rule and why; or print the decision table.",
        usage:
            "select --kind KIND --size SIZE [--sensitive] [--content-type TYPE] [--min-os OS] [--root DIR] [--json] | select --table",
        details:
            "Prints the tier (defaults, secrets, records or files), the rule id, the Apple equivalent and why; with --root, "
            + "the backend the store's configuration makes active there, its concurrency guarantee and durability.",
        options: [
            kindOption, sizeOption, sensitiveFlag, contentTypeOption, minimumOSOption, flatFlag, queriedFlag,
            valueLimitOption, budgetOption, rootOption, tableFlag, JSONOutput.option,
        ])

    var root: StoreRoot
    var valueLimit: Int?
    var minimumOS: PlatformVersion?
    /// `nil` for `--table`: the whole table is printed.
    var descriptor: DataDescriptor?
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        root = StoreRoot(option: try arguments.value(Self.rootOption))
        valueLimit = try arguments.value(Self.valueLimitOption) ?? arguments.value(Self.budgetOption)
        minimumOS = try arguments.value(Self.minimumOSOption)
        json = arguments.isSet(JSONOutput.option)
        let kind = try arguments.value(Self.kindOption)
        let size = try arguments.value(Self.sizeOption)
        let sensitive = arguments.isSet(Self.sensitiveFlag)
        let contentType = try arguments.value(Self.contentTypeOption)
        let flat = arguments.isSet(Self.flatFlag)
        let queried = arguments.isSet(Self.queriedFlag)
        if arguments.isSet(Self.tableFlag) {
            if json { throw UsageError("--table prints the decision table as text; --json prints one selection") }
            return
        }
        guard let kind else { throw UsageError("'--kind' is required (or use --table)") }
        guard let size else { throw UsageError("'--size' is required") }
        descriptor = DataDescriptor(
            kind: kind, estimatedSize: size, isSensitive: sensitive ? true : nil, contentType: contentType,
            isFlat: flat, isQueried: queried)
    }

    func run() throws {
        let paths = try root.path() == nil ? nil : try root.paths(for: .read)
        let store = try paths.map { try StoreAccess.configuration($0) }
        var configuration = store?.selector ?? SelectorConfiguration()
        if let valueLimit { configuration.defaults.valueLimit = valueLimit }
        if let minimumOS { configuration.context.minimumOS = minimumOS }
        let selector = StorageSelector(configuration: configuration)
        guard let descriptor else { return print(selector.renderTable()) }
        var selection = selector.select(descriptor)
        if let store, let paths {
            // The store's active backend reports its own facts; nothing is opened or changed to learn them.
            let facts = try Storage.configuredBackendFacts(store, paths: paths)
            if let backend = facts.first(where: { $0.tier == selection.tier }) {
                selection.backend = backend.name
                selection.concurrencyGuarantee = backend.concurrencyGuarantee
                selection.durability = backend.durability
            }
        }
        let concurrency =
            selection.backend == nil
            ? "reported by the tier's backend: give --root DIR to ask a store's" : selection.concurrencyGuarantee
        if json {
            var object: [ExactString: JSONValue] = [
                "tier": .string(selection.tier.rawValue), "rule": .string(selection.ruleID),
                "apple": .string(selection.appleEquivalent), "reason": .string(selection.reason),
                "concurrency": .string(concurrency),
            ]
            if let backend = selection.backend { object["backend"] = .string(backend) }
            if let durability = selection.durability { object["durability"] = .string(durability.description) }
            return JSONOutput.print(.object(object))
        }
        print("tier:        \(selection.tier.rawValue)")
        print("rule:        \(selection.ruleID)")
        print("apple:       \(selection.appleEquivalent)")
        print("why:         \(selection.reason)")
        if let backend = selection.backend { print("backend:     \(backend)") }
        print("concurrency: \(concurrency)")
        if let durability = selection.durability { print("durability:  \(durability)") }
    }

    /// A `--min-os` value, read as a platform version.
    /// - Throws: ``UsageError`` for a text that is not one.
    @Sendable static func minimumOS(_ os: String) throws -> PlatformVersion {
        guard let version = PlatformVersion(parsing: os) else {
            throw UsageError("cannot read '\(os)' as a minimum OS; write it like iOS17, iOS 16.4 or macOS14")
        }
        return version
    }

    /// Reads `1024`, `12KiB`, `12KB`, `12K`, `3MiB`, `1.5M`, `2GiB` (units of 1024).
    @Sendable static func parseSize(_ text: String) throws -> Int {
        guard let size = ByteCount(parsing: text) else {
            throw UsageError("cannot read '\(text)' as a size; write it like 512, 64KiB or 3MB")
        }
        return size.value
    }
}
