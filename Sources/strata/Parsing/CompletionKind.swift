/// How a shell completes the value of an option or a positional argument.
enum CompletionKind: Sendable, Equatable {
    /// Nothing is offered (a key, a name, a number).
    case none
    /// Paths: a file, a folder, an archive, a store root.
    case path
}
