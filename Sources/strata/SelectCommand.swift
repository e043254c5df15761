import Foundation
import Strata

/// `strata select`: asks the decision table where a value belongs, or prints the whole table.
enum SelectCommand {
    static let spec = CommandSpec(
        name: "select",
        summary: "Say which tier a value belongs in, by which rule and why; or print the decision table.",
        usage:
            "select --kind KIND --size SIZE [--sensitive] [--content-type TYPE] [--min-os OS] [--root DIR] | select --table",
        options: [
            .value("--kind", "KIND", "preference, credential, structured, relational or file."),
            .value("--size", "SIZE", "Estimated size: bytes, or with a unit (12KiB, 3MB, 2M)."),
            .flag("--sensitive", "The value is sensitive (a token, a key) whatever its kind."),
            .value("--content-type", "TYPE", "Media type of file-like data (application/pdf, audio/wav)."),
            .value("--min-os", "OS", "The app's minimum OS (iOS17, macOS14): SwiftData or CoreData."),
            .flag("--flat", "Structured data that is flat (a few fields, no nesting)."),
            .flag("--queried", "Structured data the app filters, sorts or joins."),
            .value(
                "--defaults-value-limit", "SIZE",
                "The largest preference defaults holds; larger go to files. The default is the store's, else 64KiB."),
            .value("--defaults-budget", "SIZE", "The old name of --defaults-value-limit."),
            .value(
                "--root", "DIR",
                "A store (or STRATA_ROOT): its configuration's thresholds, and the facts of the backend that would hold "
                    + "the value."),
            .flag("--table", "Print the whole decision table and its rules."),
            .flag("--json", "Print the selection as JSON."),
        ],
        details:
            "Prints the tier (defaults, secrets, records or files), the rule id, the Apple equivalent and why; with --root, "
            + "the backend the store's configuration makes active there, its concurrency guarantee and durability.")

    static func run(_ arguments: [String]) throws {
        let parsed = try spec.parse(arguments)
        if parsed.wantsHelp { return print(spec.help) }
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let paths = try StoreRoot.path(parsed) == nil ? nil : try StoreRoot.paths(parsed, for: .read)
        let store = try paths.map { try StoreAccess.configuration($0) }
        var configuration = store?.selector ?? SelectorConfiguration()
        if let limit = parsed.value("--defaults-value-limit") ?? parsed.value("--defaults-budget") {
            configuration.defaults.valueLimit = try parseSize(limit)
        }
        if let os = try minimumOS(parsed) { configuration.context.minimumOS = os }
        let selector = StorageSelector(configuration: configuration)
        if parsed.has("--table") { return print(selector.renderTable()) }

        guard let kindText = parsed.value("--kind") else { throw UsageError("'--kind' is required (or use --table)") }
        guard let kind = DataKind(rawValue: kindText.lowercased()) else {
            let known = DataKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("unknown kind '\(kindText)'; use one of \(known)")
        }
        guard let sizeText = parsed.value("--size") else { throw UsageError("'--size' is required") }
        let descriptor = DataDescriptor(
            kind: kind, estimatedSize: try parseSize(sizeText),
            isSensitive: parsed.has("--sensitive") ? true : nil,
            contentType: parsed.value("--content-type"), isFlat: parsed.has("--flat"),
            isQueried: parsed.has("--queried"))
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
        if parsed.has("--json") {
            var object: [String: String] = [
                "tier": selection.tier.rawValue, "rule": selection.ruleID, "apple": selection.appleEquivalent,
                "reason": selection.reason, "concurrency": concurrency,
            ]
            if let backend = selection.backend { object["backend"] = backend }
            if let durability = selection.durability { object["durability"] = durability.description }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return print(String(decoding: data, as: UTF8.self))
        }
        print("tier:        \(selection.tier.rawValue)")
        print("rule:        \(selection.ruleID)")
        print("apple:       \(selection.appleEquivalent)")
        print("why:         \(selection.reason)")
        if let backend = selection.backend { print("backend:     \(backend)") }
        print("concurrency: \(concurrency)")
        if let durability = selection.durability { print("durability:  \(durability)") }
    }

    /// The `--min-os` option, read as a platform version.
    /// - Throws: ``UsageError`` for a text that is not one.
    static func minimumOS(_ parsed: ParsedArguments) throws -> PlatformVersion? {
        guard let os = parsed.value("--min-os") else { return nil }
        guard let version = PlatformVersion(parsing: os) else {
            throw UsageError("cannot read '\(os)' as a minimum OS; write it like iOS17, iOS 16.4 or macOS14")
        }
        return version
    }

    /// Reads `1024`, `12KiB`, `12KB`, `12K`, `3MiB`, `1.5M`, `2GiB` (units of 1024).
    static func parseSize(_ text: String) throws -> Int {
        guard let size = ByteCount(parsing: text) else {
            throw UsageError("cannot read '\(text)' as a size; write it like 512, 64KiB or 3MB")
        }
        return size.value
    }
}
