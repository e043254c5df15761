/// What a command prints on standard output when it succeeds, as its help page says: every verb that prints a
/// result takes `--json`; the others say what they print instead.
enum CommandOutput: Sendable, Equatable {
    /// A result, which `--json` (``JSONOutput/option``, declared by the command) prints as one JSON document.
    case json
    /// Nothing: the exit code says whether it worked (a note may go to standard error).
    case nothing
    /// Content as it is, never JSON: the text says what (`the value's bytes`, `a shell script`).
    case content(String)

    /// The line the help page shows for it, or `nil` for ``json`` (the options list `--json`).
    var helpLine: String? {
        switch self {
        case .json: nil
        case .nothing: "Output: nothing on success (the exit code says it worked); no --json."
        case .content(let what): "Output: \(what); no --json."
        }
    }
}
