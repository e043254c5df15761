import Foundation
import Strata
import StrataLint

/// `strata lint PATH...`: the storage-lint checks outside SwiftPM.
struct LintCommand: ToolCommand {
    static let paths = Argument(
        list: "PATH", "A Swift source file, or a folder searched for them.", atLeastOne: true, completion: .path)
    static let strictFlag = Flag("--strict", "Exit 1 when anything is found.")
    static let configuration = CommandConfiguration(
        "lint", summary: "Check Swift sources for misuse of defaults and keychain (the storage-lint rules).",
        usage: "lint PATH... [--strict] [--json]",
        details: "Rules: " + LintRule.allCases.map(\.rawValue).joined(separator: ", ")
            + ". Mark the app's wrapper file with '// storage-lint: wrapper'; silence a line with '// storage-lint: ignore'.",
        arguments: [paths], options: [strictFlag, JSONOutput.option])

    var paths: [String]
    var isStrict: Bool
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        paths = try arguments.value(Self.paths)
        isStrict = arguments.isSet(Self.strictFlag)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let findings: [LintFinding]
        do {
            findings = try StorageLinter().lint(paths: paths)
        } catch {
            throw CommandFailure("cannot read the sources: \(error)")
        }
        if json {
            JSONOutput.print(
                .object([
                    "findings": .array(
                        findings.map {
                            .object([
                                "file": .string($0.file), "line": .integer(Int64($0.line)),
                                "rule": .string($0.rule.rawValue), "message": .string($0.message),
                            ])
                        })
                ]))
        } else {
            for finding in findings { FileHandle.standardOutput.write(Data("\(finding)\n".utf8)) }
        }
        FileHandle.standardError.write(Data("storage-lint: \(findings.count) finding(s)\n".utf8))
        if isStrict && !findings.isEmpty { throw CommandFailure("\(findings.count) finding(s)") }
    }
}
