/// A command of the tool (`strata files ls`): a type whose stored properties are its typed arguments and
/// options, read through the descriptors its ``configuration`` lists.
///
/// ```swift
/// struct RecordsQueryCommand: ToolCommand {
///     static let limit = Option("--limit", "N", "At most N records.") { ... }
///     static let configuration = CommandConfiguration(
///         "query", group: "records", summary: "...", usage: "...", arguments: [...], options: [limit, ...])
///     var limit: Int?
///     init(parsing arguments: inout ParsedArguments) throws { limit = try arguments.value(Self.limit) }
///     func run() throws { ... }
/// }
/// ```
protocol ToolCommand: Sendable {
    /// The command's name, help and accepted arguments and options.
    static var configuration: CommandConfiguration { get }

    /// Reads every argument and option the configuration declares, and checks what can be checked before
    /// anything is opened.
    /// - Throws: ``UsageError`` naming the option or argument and the fix.
    init(parsing arguments: inout ParsedArguments) throws

    /// Does the work.
    /// - Throws: ``UsageError`` for a mistake only the work finds; any other error is a failure (exit code 1).
    func run() throws
}

extension ToolCommand {
    /// Parses `words` (what follows the command's name) and runs the command, or prints its help.
    static func main(_ words: [String]) throws {
        var arguments = try ParsedArguments(words, for: configuration)
        if arguments.wantsHelp { return print(configuration.help) }
        let command = try Self(parsing: &arguments)
        arguments.assertEverythingRead()
        try command.run()
    }
}
