// strata-lint PATH... [--strict]: the storage-lint checks, for the SwiftPM command plugin and for CI.
// Prints `file:line: rule: message`; exits 1 on findings with --strict, 2 on bad arguments.
import Foundation
import StrataLint

var arguments = Array(CommandLine.arguments.dropFirst())
let strict = arguments.contains("--strict")
arguments.removeAll { $0 == "--strict" }
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: strata-lint PATH... [--strict]\n".utf8))
    exit(2)
}
do {
    let findings = try StorageLinter().lint(paths: arguments)
    for finding in findings { FileHandle.standardOutput.write(Data("\(finding)\n".utf8)) }
    FileHandle.standardError.write(Data("storage-lint: \(findings.count) finding(s)\n".utf8))
    exit(strict && !findings.isEmpty ? 1 : 0)
} catch {
    FileHandle.standardError.write(Data("strata-lint: error: \(error)\n".utf8))
    exit(2)
}
