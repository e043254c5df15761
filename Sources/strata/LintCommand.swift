import Foundation
import StrataLint

/// `strata lint PATH...`: the storage-lint checks outside SwiftPM.
enum LintCommand {
    static let spec = CommandSpec(
        name: "lint", summary: "Check Swift sources for misuse of defaults and keychain (the storage-lint rules).",
        usage: "lint PATH... [--strict]",
        options: [.flag("--strict", "Exit 1 when anything is found.")],
        details: "Rules: " + LintRule.allCases.map(\.rawValue).joined(separator: ", ")
            + ". Mark the app's wrapper file with '// storage-lint: wrapper'; silence a line with '// storage-lint: ignore'."
    )

    static func run(_ arguments: [String]) throws {
        let parsed = try spec.parse(arguments)
        if parsed.wantsHelp { return print(spec.help) }
        guard !parsed.positionals.isEmpty else { throw UsageError("give at least one file or folder") }
        let findings: [LintFinding]
        do {
            findings = try StorageLinter().lint(paths: parsed.positionals)
        } catch {
            throw CommandFailure("cannot read the sources: \(error)")
        }
        for finding in findings { FileHandle.standardOutput.write(Data("\(finding)\n".utf8)) }
        FileHandle.standardError.write(Data("storage-lint: \(findings.count) finding(s)\n".utf8))
        if parsed.has("--strict") && !findings.isEmpty { throw CommandFailure("\(findings.count) finding(s)") }
    }
}
