/// A positional argument as the parser, the help page and the completion scripts see it, whatever the type of
/// its value.
struct ArgumentSpec: Sendable, Equatable {
    /// How many words the argument takes.
    enum Arity: Sendable, Equatable {
        /// Exactly one (`KEY`).
        case one
        /// None or one (`[PREFIX]`); only the last argument.
        case optional
        /// Any number (`[SNAPSHOT...]`), or with `atLeastOne` one or more (`PATH...`); only the last argument.
        case list(atLeastOne: Bool)
    }

    /// Its placeholder, upper case: `KEY`, `SERVICE`.
    var name: String
    var help: String
    var arity: Arity
    var completion = CompletionKind.none
    /// Whether it takes any text (`defaults set KEY VALUE`'s VALUE): there a word that starts with `-` and is not
    /// one of the command's options (`-5`, `-h`) is the argument itself, never an option or a request for help.
    var isFreeForm = false

    /// How the usage line and the help page name it: `KEY`, `[PREFIX]`, `PATH...`, `[SNAPSHOT...]`.
    var label: String {
        switch arity {
        case .one: name
        case .optional: "[\(name)]"
        case .list(atLeastOne: true): "\(name)..."
        case .list(atLeastOne: false): "[\(name)...]"
        }
    }
}
