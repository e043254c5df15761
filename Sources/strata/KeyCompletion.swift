import Foundation
import Strata
import Synchronization

/// `strata __complete-keys WORD...`: the hidden verb the completion scripts call to complete a key argument
/// (``CompletionKind/key(_:)``) from the store the command line names.
///
/// The words are the command line after `strata`, the word being completed last (empty at a new word). The verb
/// finds the command, the argument that word fills and the options given (`--root`, `--suite`, `--keyring`,
/// `--store`, `--url`, a key file), opens the store only to read and prints each key that starts with the word, one
/// a line. It exits 1, printing nothing, when the word fills no key argument (the shell then completes paths or
/// nothing), and 0 otherwise; a store it cannot open or read prints nothing. It never asks for a passphrase: a keyring
/// is listed only when a key file, a passphrase file or the environment opens it.
enum KeyCompletion {
    static let verb = "__complete-keys"

    /// What the word being completed fills: the keys it takes, the command's options as given, and the
    /// positional words before it.
    struct Position {
        var keys: CompletionKind.Keys
        var configuration: CommandConfiguration
        /// The options given that take a value, as `[name, value]` pairs in the order given.
        var optionWords: [String]
        var positionals: [String]
    }

    /// Runs the verb and returns its exit code.
    static func run(_ words: [String]) -> Int32 {
        guard let current = words.last, let position = position(of: Array(words.dropLast())) else { return 1 }
        guard !current.hasPrefix("-") else { return 1 }
        Terminal.mayAsk.store(false, ordering: .relaxed)
        let keys = (try? self.keys(at: position, prefix: current)) ?? []
        // A key that holds a line break cannot be one line of the answer: it is left out.
        for key in keys where key.hasPrefix(current) && !key.contains(where: \.isNewline) { print(key) }
        return 0
    }

    /// The key argument the next word fills, after `words` (the command line after `strata`, up to that word).
    static func position(of words: [String]) -> Position? {
        var words = words
        var optionWords: [String] = []
        // The global options given before the verb (`strata --root DIR get`).
        while let first = words.first, StoreRoot.isGlobalOption(first) {
            let (pair, used) = optionValue(first, after: words.dropFirst())
            guard let pair else { return nil }
            optionWords += pair
            words.removeFirst(used)
        }
        guard let verb = words.first, let entry = CommandLineTool.table.first(where: { $0.name == verb }) else {
            return nil
        }
        words.removeFirst()
        let configuration: CommandConfiguration
        switch entry {
        case .command(let command):
            configuration = command.configuration
        case .group(let group):
            guard let name = words.first, let command = group.command(named: name) else { return nil }
            configuration = command.configuration
            words.removeFirst()
        }
        var positionals: [String] = []
        var optionsEnded = false
        var rest = words[...]
        while let word = rest.first {
            rest = rest.dropFirst()
            if optionsEnded || !word.hasPrefix("-") || word == "-" {
                positionals.append(word)
            } else if word == "--" {
                optionsEnded = true
            } else {
                let name = String(word.prefix { $0 != "=" })
                guard configuration.options.first(where: { $0.name == name })?.valueName != nil else { continue }
                let (pair, used) = optionValue(word, after: rest)
                // An option whose value is the word being completed: that word is no key.
                guard let pair else { return nil }
                optionWords += pair
                rest = rest.dropFirst(used - 1)
            }
        }
        guard case .key(let keys)? = configuration.argument(at: positionals.count)?.completion else { return nil }
        return Position(
            keys: keys, configuration: configuration, optionWords: optionWords, positionals: positionals)
    }

    /// The `[name, value]` of the option `word` (`--root DIR` or `--root=DIR`, or bash's `--root = DIR`), and how
    /// many words it used counting itself; `nil` when its value is not among `following`.
    private static func optionValue(_ word: String, after following: ArraySlice<String>) -> ([String]?, Int) {
        if let equals = word.firstIndex(of: "=") {
            return ([String(word[..<equals]), String(word[word.index(after: equals)...])], 1)
        }
        let following = Array(following)
        if following.first == "=" {
            return following.count > 1 ? ([word, following[1]], 3) : (nil, 0)
        }
        return following.isEmpty ? (nil, 0) : ([word, following[0]], 2)
    }

    /// The keys that may fill `position`, read from the store its options name, that start with `prefix` (a store
    /// may return more).
    static func keys(at position: Position, prefix: String) throws -> [String] {
        // The command's options, without its arguments: what its access types read.
        var bare = position.configuration
        bare.arguments = []
        var arguments = try ParsedArguments(expandingHome(position.optionWords, in: bare), for: bare)
        switch position.keys {
        case .storage:
            return try StorageAccess(parsing: &arguments).open(for: .read).keys(prefix: prefix)
        case .defaults:
            return try DefaultsAccess(parsing: &arguments).snapshot().keys.map(\.string).sorted()
        case .secretService, .secretAccount:
            let access = try SecretsAccess(parsing: &arguments)
            let service = position.keys == .secretAccount ? position.positionals.last : nil
            let items = try access.openIfPresent()?.items(service: service) ?? []
            let names = items.map { position.keys == .secretAccount ? $0.account : $0.service }
            return Set(names).sorted()
        case .files:
            // A plain string prefix, as every other listing takes it.
            return try FilesAccess(parsing: &arguments).open(for: .read, reportingChanges: false)?.list(prefix: prefix)
                ?? []
        case .collection:
            return try RecordsAccess(parsing: &arguments).openIfPresent()?.collectionNames() ?? []
        case .recordKeys:
            let records = try RecordsAccess(parsing: &arguments).openIfPresent()
            return try records.map { try RecordsCommands.keyValueKeys(in: $0, prefix: prefix) } ?? []
        }
    }

    /// `words` with a leading `~` of a path option's value replaced by `HOME`: the shell leaves it as typed in the
    /// words it passes.
    private static func expandingHome(_ words: [String], in configuration: CommandConfiguration) -> [String] {
        guard let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty else { return words }
        return stride(from: 0, to: words.count - 1, by: 2).flatMap { index -> [String] in
            let (name, value) = (words[index], words[index + 1])
            let isPath = configuration.options.first { $0.name == name }?.completion == .path
            guard isPath, value == "~" || value.hasPrefix("~/") else { return [name, value] }
            return [name, home + value.dropFirst()]
        }
    }
}
