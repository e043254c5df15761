import Foundation

/// `strata completions bash|zsh|fish`: a shell completion script made from the tool's own command table.
enum CompletionCommand {
    static let spec = CommandSpec(
        name: "completions", summary: "Print a shell completion script (bash, zsh or fish).",
        usage: "completions SHELL",
        details:
            "bash: strata completions bash > ~/.local/share/bash-completion/completions/strata\n"
            + "zsh:  strata completions zsh > \"${fpath[1]}/_strata\" (then restart zsh)\n"
            + "fish: strata completions fish > ~/.config/fish/completions/strata.fish")

    static func run(_ arguments: [String]) throws {
        let parsed = try spec.parse(arguments)
        if parsed.wantsHelp { return print(spec.help) }
        let shell = try parsed.positionals(1, "SHELL (bash, zsh or fish)")[0]
        guard let script = CompletionScript.script(for: shell) else {
            throw UsageError(
                "no completion script for the shell '\(shell)'; use bash, zsh or fish"
                    + Suggestion.phrase(for: shell, in: CompletionScript.shells))
        }
        print(script, terminator: "")
    }
}
