import Strata

/// The words of one command line, sorted by the command's ``CommandConfiguration``: each option's values, the
/// flags given, and each positional argument's words. A command reads them as typed values, through the same
/// descriptors its configuration lists (``value(_:)``, ``values(_:)``, ``isSet(_:)``).
struct ParsedArguments {
    let configuration: CommandConfiguration
    /// Whether `--help` or `-h` was given: the command's help is printed instead of running it.
    private(set) var wantsHelp = false
    private var optionValues: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var argumentWords: [String: [String]] = [:]
    /// The names of the options and arguments the command has read (see ``assertEverythingRead()``).
    private var read: Set<String> = []

    /// Sorts `words` (what follows the command's name) by `configuration`.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a value given to a flag, an option given
    ///   twice with two values, or a count of positional arguments the command does not take.
    init(_ words: [String], for configuration: CommandConfiguration) throws {
        self.configuration = configuration
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !word.hasPrefix("-") || word == "-" {
                positionals.append(word)
                continue
            }
            if word != "--", configuration.argument(at: positionals.count)?.isFreeForm == true,
                !configuration.options.contains(where: {
                    $0.name == word.split(separator: "=", maxSplits: 1).first.map(String.init)
                })
            {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if word == "--help" || word == "-h" {
                wantsHelp = true
                continue
            }
            var name = word
            var inline: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inline = String(word[word.index(after: equals)...])
            }
            guard let option = configuration.options.first(where: { $0.name == name }) else {
                let known = configuration.options.map(\.name) + ["--help"]
                throw UsageError(
                    "unknown option '\(name)' for 'strata \(configuration.path)'"
                        + Suggestion.phrase(for: name, in: known), command: configuration.path)
            }
            guard let valueName = option.valueName else {
                if inline != nil { throw UsageError("'\(name)' is a flag and takes no value") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < words.count else { throw UsageError("'\(name)' needs a value (\(valueName))") }
                value = words[index]
                index += 1
            }
            if !option.isRepeatable, let earlier = optionValues[name]?.first, earlier != value {
                throw UsageError(
                    "'\(name)' is given twice, as '\(earlier.escapedForDisplay)' and '\(value.escapedForDisplay)'; "
                        + "give it once")
            }
            optionValues[name, default: []].append(value)
        }
        if !wantsHelp { try assign(positionals) }
    }

    /// Gives each declared argument its words, in order.
    /// - Throws: ``UsageError`` that says how many were expected and how many were given.
    private mutating func assign(_ words: [String]) throws {
        let arguments = configuration.arguments
        let required = arguments.filter { $0.arity == .one }
        let names = required.map(\.name).joined(separator: " ")
        let last = arguments.last.flatMap { $0.arity == .one ? nil : $0 }
        switch last?.arity {
        case .optional? where !(required.count...required.count + 1).contains(words.count):
            throw UsageError(
                required.isEmpty
                    ? "expected at most one \(last!.name), got \(words.count)"
                    : "expected \(names) and at most one \(last!.name), got \(words.count) arguments")
        case .list(atLeastOne: let atLeastOne)? where words.count < required.count + (atLeastOne ? 1 : 0):
            throw UsageError(
                required.isEmpty
                    ? "expected at least one \(last!.name), got \(words.count)"
                    : "expected \(names) and \(atLeastOne ? "at least one" : "any number of") \(last!.name), got "
                        + "\(words.count) arguments")
        case nil where words.count != required.count:
            let expected =
                switch required.count {
                case 0: "no arguments"
                case 1: "one \(names)"
                default: "\(required.count) arguments, \(names)"
                }
            throw UsageError("expected \(expected), got \(words.count)")
        default:
            break
        }
        for (index, argument) in required.enumerated() { argumentWords[argument.name] = [words[index]] }
        if let last { argumentWords[last.name] = Array(words.dropFirst(required.count)) }
    }

    /// The value of `option`, or `nil` when it is not given.
    /// - Throws: ``UsageError`` from the option's reader.
    mutating func value<T>(_ option: Option<T>) throws -> T? {
        assert(!option.spec.isRepeatable, "\(option.spec.name) is repeatable: read it with values(_:)")
        return try values(option).first
    }

    /// Every value given to a repeatable `option`, in order.
    /// - Throws: ``UsageError`` from the option's reader.
    mutating func values<T>(_ option: Option<T>) throws -> [T] {
        declare(option.spec.name, declared: configuration.options.contains(option.spec))
        return try (optionValues[option.spec.name] ?? []).map(option.read)
    }

    /// Whether `flag` is given.
    mutating func isSet(_ flag: Flag) -> Bool {
        declare(flag.spec.name, declared: configuration.options.contains(flag.spec))
        return flags.contains(flag.spec.name)
    }

    /// The value of `argument`.
    /// - Throws: ``UsageError`` from the argument's reader.
    mutating func value<T>(_ argument: Argument<T>) throws -> T {
        declare(argument.spec.name, declared: configuration.arguments.contains(argument.spec))
        return try argument.read(argumentWords[argument.spec.name] ?? [])
    }

    private mutating func declare(_ name: String, declared: Bool) {
        assert(declared, "strata \(configuration.path) reads \(name), which its configuration does not declare")
        read.insert(name)
    }

    /// Checks, in debug builds, that the command read every option and argument its configuration declares: what
    /// the help page and the completions offer is what the command uses.
    func assertEverythingRead() {
        let declared = Set(configuration.options.map(\.name) + configuration.arguments.map(\.name))
        assert(declared.isSubset(of: read), "strata \(configuration.path) never reads \(declared.subtracting(read))")
    }
}
