import Foundation
import Strata

/// `strata select`: asks the decision table where a value belongs, or prints the whole table.
enum SelectCommand {
    static let spec = CommandSpec(
        name: "select",
        summary: "Say which tier a value belongs in, by which rule and why; or print the decision table.",
        usage: "select --kind KIND --size SIZE [--sensitive] [--content-type TYPE] [--min-os OS] | select --table",
        options: [
            .value("--kind", "KIND", "preference, credential, structured, relational or file."),
            .value("--size", "SIZE", "Estimated size: bytes, or with a unit (12KiB, 3MB, 2M)."),
            .flag("--sensitive", "The value is sensitive (a token, a key) whatever its kind."),
            .value("--content-type", "TYPE", "Media type of file-like data (application/pdf, audio/wav)."),
            .value("--min-os", "OS", "The app's minimum OS (iOS17, macOS14): SwiftData or CoreData."),
            .flag("--flat", "Structured data that is flat (a few fields, no nesting)."),
            .flag("--queried", "Structured data the app filters, sorts or joins."),
            .value("--defaults-budget", "SIZE", "The defaults budget. The default is 1MiB."),
            .flag("--table", "Print the whole decision table and its rules."),
            .flag("--json", "Print the selection as JSON."),
        ],
        details: "Prints the tier (defaults, secrets, records or files), the rule id, the Apple equivalent and why.")

    static func run(_ arguments: [String]) throws {
        let parsed = try spec.parse(arguments)
        if parsed.wantsHelp { return print(spec.help) }
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        var configuration = SelectorConfiguration()
        if let budget = parsed.value("--defaults-budget") { configuration.defaultsBudget = try parseSize(budget) }
        if let os = parsed.value("--min-os") {
            guard let version = PlatformVersion(parsing: os) else {
                throw UsageError("cannot read '\(os)' as a minimum OS; write it like iOS17, iOS 16.4 or macOS14")
            }
            configuration.context.minimumOS = version
        }
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
        let selection = selector.select(descriptor)
        if parsed.has("--json") {
            let object: [String: String] = [
                "tier": selection.tier.rawValue, "rule": selection.ruleID, "apple": selection.appleEquivalent,
                "reason": selection.reason, "concurrency": selection.concurrencyGuarantee,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return print(String(decoding: data, as: UTF8.self))
        }
        print("tier:        \(selection.tier.rawValue)")
        print("rule:        \(selection.ruleID)")
        print("apple:       \(selection.appleEquivalent)")
        print("why:         \(selection.reason)")
        print("concurrency: \(selection.concurrencyGuarantee)")
    }

    /// Reads `1024`, `12KiB`, `12KB`, `12K`, `3MiB`, `1.5M`, `2GiB` (units of 1024).
    static func parseSize(_ text: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1_048_576, "mb": 1_048_576, "mib": 1_048_576,
            "g": 1_073_741_824, "gb": 1_073_741_824, "gib": 1_073_741_824,
        ]
        guard let number = Double(digits), let multiplier = multipliers[unit], number >= 0 else {
            throw UsageError("cannot read '\(text)' as a size; write it like 512, 64KiB or 3MB")
        }
        let bytes = number * multiplier
        guard bytes < Double(Int.max) else { throw UsageError("the size '\(text)' is too large") }
        return Int(bytes)
    }
}
