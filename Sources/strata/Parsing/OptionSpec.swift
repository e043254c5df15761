/// An option as the parser, the help page and the completion scripts see it, whatever the type of its value: a
/// flag (`--long`) or an option with a value (`--suite NAME`).
struct OptionSpec: Sendable, Equatable {
    var name: String
    /// The placeholder of the value (`NAME`), or `nil` for a flag.
    var valueName: String?
    var help: String
    /// Whether the option may be given more than once, each value kept (`--where`); another option given twice
    /// with two values is a usage error, never the last one silently.
    var isRepeatable = false
    var completion = CompletionKind.none

    /// How the help page names it: `--suite NAME`, `--long`.
    var label: String { valueName.map { "\(name) \($0)" } ?? name }

    /// `--help`, which every command accepts.
    static let help = OptionSpec(name: "--help", valueName: nil, help: "Show this help.")
}
