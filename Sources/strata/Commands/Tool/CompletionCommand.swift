import Foundation

/// `strata completions bash|zsh|fish`: a shell completion script made from the tool's own command table.
struct CompletionCommand: ToolCommand {
    static let shell = Argument("SHELL", "bash, zsh or fish.") { shell in
        guard let script = CompletionScript.script(for: shell) else {
            throw UsageError(
                "no completion script for the shell '\(shell)'; use bash, zsh or fish"
                    + Suggestion.phrase(for: shell, in: CompletionScript.shells))
        }
        return script
    }
    static let configuration = CommandConfiguration(
        "completions", summary: "Print a shell completion script (bash, zsh or fish).", usage: "completions SHELL",
        details:
            "bash: strata completions bash > ~/.local/share/bash-completion/completions/strata\n"
            + "zsh:  strata completions zsh > \"${fpath[1]}/_strata\" (then restart zsh)\n"
            + "fish: strata completions fish > ~/.config/fish/completions/strata.fish\n"
            + "Keys are completed from the store named on the line (--root, else STRATA_ROOT), read only; a keyring "
            + "only when a key file, a passphrase file or the environment opens it.",
        arguments: [shell], output: .content("the shell script"))

    /// The script for the shell named.
    var script: String

    init(parsing arguments: inout ParsedArguments) throws {
        script = try arguments.value(Self.shell)
    }

    func run() throws {
        print(script, terminator: "")
    }
}
