/// An option that takes a value, declared once (as a `static let` of the command or of its option group) and
/// read as `Value` when the command is parsed: `--limit N` as an `Int`, `--kind KIND` as a `DataKind`.
///
/// ```swift
/// static let limit = Option("--limit", "N", "At most N records.") { text in
///     guard let number = Int(text), number >= 0 else { throw UsageError("--limit takes a whole number") }
///     return number
/// }
/// ```
struct Option<Value: Sendable>: OptionDeclaration {
    let spec: OptionSpec
    /// Reads one value given on the command line; throws ``UsageError`` naming the option and the fix.
    let read: @Sendable (String) throws -> Value

    /// - Parameters:
    ///   - repeatable: Whether it may be given more than once, each value kept (read with
    ///     ``ParsedArguments/values(_:)``).
    init(
        _ name: String, _ valueName: String, _ help: String, completion: CompletionKind = .none,
        repeatable: Bool = false, read: @escaping @Sendable (String) throws -> Value
    ) {
        spec = OptionSpec(
            name: name, valueName: valueName, help: help, isRepeatable: repeatable, completion: completion)
        self.read = read
    }
}

extension Option where Value == String {
    /// An option whose value is the text given.
    init(
        _ name: String, _ valueName: String, _ help: String, completion: CompletionKind = .none,
        repeatable: Bool = false
    ) {
        self.init(name, valueName, help, completion: completion, repeatable: repeatable) { $0 }
    }
}
