import Foundation

extension StorageSelector {
    /// The decision table for humans: the tiers with their Apple equivalents, then the ordered rules with the
    /// thresholds in force. This is what `strata select --table` prints.
    public func renderTable() -> String {
        var lines: [String] = []
        lines.append("Storage tiers (the decision table)")
        lines.append(
            Self.grid(
                header: ["tier", "Apple equivalent", "for", "Apple's thread safety", "data size"],
                rows: [
                    [
                        "defaults", "UserDefaults", "light configuration, user preferences", "main-thread safe",
                        "< 1 MB",
                    ],
                    ["secrets", "Keychain", "tokens, keys, passwords, credentials", "safe", "tiny"],
                    [
                        "records", "CoreData", "structured, relational data, offline cache", "needs configuration",
                        "large",
                    ],
                    ["records", "SwiftData (iOS 17+)", "structured data in new projects", "safe", "large"],
                    ["files", "FileManager", "files, images, exports (PDF, audio)", "needs a lock", "any"],
                ]))
        lines.append("")
        lines.append(
            "Rules, first match wins (defaults value limit \(ByteCount(configuration.defaults.valueLimit)), suite "
                + "budget \(ByteCount(configuration.defaults.suiteBudget)), small structured "
                + "\(ByteCount(configuration.smallStructuredLimit)), secret size \(ByteCount(configuration.secretSizeLimit)))"
        )
        var rows = rules.enumerated().map { index, rule in
            ["\(index + 1)", rule.id, rule.tier.rawValue, rule.appleEquivalent(configuration.context), rule.condition]
        }
        let fallback = SelectionRule.suiteFull
        rows.append([
            "then", fallback.id, fallback.tier.rawValue, fallback.appleEquivalent(configuration.context),
            fallback.condition,
        ])
        lines.append(Self.grid(header: ["#", "rule", "tier", "Apple", "when"], rows: rows))
        return lines.joined(separator: "\n")
    }

    /// Lays out rows in columns padded to the widest cell.
    static func grid(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }
        return ([line(header), line(rule)] + rows.map(line)).joined(separator: "\n")
    }
}
