import Foundation

/// A positional argument of a verb, as its usage line names it (`KEY`, `[PREFIX]`, `PATH...`), with the text
/// its help page shows under ARGUMENTS.
struct PositionalArgument: Equatable {
    var name: String
    var isOptional: Bool
    var isRepeated: Bool

    /// How the help page names it: `KEY`, `[PREFIX]`, `PATH...`.
    var label: String {
        let base = name + (isRepeated ? "..." : "")
        return isOptional ? "[\(base)]" : base
    }

    /// Whether a shell should complete it with paths: a file, a folder, an archive.
    var isPath: Bool { ["FILE", "ARCHIVE", "PATH", "ROOT", "DIR"].contains(name) }

    /// The positionals of a usage line such as `files ls [PREFIX] --root DIR [--long]`: the upper-case words
    /// that are not an option's value, after the `commandWords` that name the verb, up to an alternative (`|`).
    static func parse(usage: String, commandWords: Int, options: [OptionSpec]) -> [PositionalArgument] {
        var found: [PositionalArgument] = []
        var skipsValue = false
        for raw in usage.split(separator: " ").dropFirst(commandWords) {
            if raw == "|" { break }
            let isOptional = raw.hasPrefix("[")
            var word = String(raw).trimmingCharacters(in: ["[", "]"])
            if skipsValue {
                skipsValue = false
                continue
            }
            if word.hasPrefix("-") {
                skipsValue = options.first { $0.name == word }?.valueName != nil
                continue
            }
            let isRepeated = word.hasSuffix("...")
            if isRepeated { word.removeLast(3) }
            guard let first = word.unicodeScalars.first, first.properties.isUppercase,
                word.unicodeScalars.allSatisfy({ $0.properties.isUppercase || $0 == "_" })
            else { continue }
            found.append(PositionalArgument(name: word, isOptional: isOptional, isRepeated: isRepeated))
        }
        return found
    }

    /// What an argument means, for a verb of `group` (`nil` for a top-level verb): the group's own sense of the
    /// name first, then the sense shared by every verb.
    static func help(for name: String, group: String?) -> String? {
        group.flatMap { glossary["\($0) \(name)"] } ?? glossary[name]
    }

    /// Every argument name a usage line uses, and what it means.
    static let glossary: [String: String] = [
        "ROOT": "The store's root folder.",
        "SHELL": "bash, zsh or fish.",
        "SNAPSHOT": "A snapshot's id, or any unique prefix of it (see 'strata snapshots').",
        "PATH": "A Swift source file, or a folder searched for them.",
        "KEY": "The key, as Storage names it (exports/report.pdf, api/token).",
        "FILE": "The file to read the value from ('-', or none: standard input).",
        "TIER": "defaults, secrets, records or files.",
        "PREFIX": "The start of the keys to list (exports/); without one, every key.",
        "defaults KEY": "The preference's key.",
        "defaults VALUE": "The new value (its type: see --type).",
        "defaults FILE": "A property list file, XML or binary.",
        "secrets SERVICE": "The item's service (as a keychain item has).",
        "secrets ACCOUNT": "The item's account within the service.",
        "records COLLECTION": "The collection's name.",
        "records ID": "The record's id (its \"id\" member).",
        "records FILE": "A JSON Lines file: one record per line.",
        "files KEY": "The file's key: its path in the store (exports/report.pdf).",
        "files FILE": "The file to copy in (outside the store; a pipe works too).",
        "files PREFIX": "A folder key (photos/) or a file key; without one, every file.",
        "files ARCHIVE": "A .zip archive, or a .gz file (then --key says where it goes).",
        "key SLOT": "A key slot's id, or any unique prefix of it (see 'strata key list').",
    ]
}
