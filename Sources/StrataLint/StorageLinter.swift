import Foundation
import StrataDefaults

/// Checks Swift sources against the storage-lint rules (``LintRule``, listed in `Documentation/Plugins.md`).
/// Text-based and fast: it reads each file once, line by line, and needs no compiler.
///
/// A file marked `// storage-lint: wrapper` is the app's defaults wrapper and may touch `UserDefaults`
/// directly; `// storage-lint: ignore` at the end of a line silences that line.
public struct StorageLinter: Sendable {
    /// Names of wrapper types or files allowed to use `UserDefaults` directly (besides marked files).
    public var allowedWrappers: Set<String>

    public init(allowedWrappers: Set<String> = ["UserDefaultsStorage"]) {
        self.allowedWrappers = allowedWrappers
    }

    /// The argument label of defaults keys (spelled in two parts so this file does not match its own rules).
    static let keyLabel = "forKey" + ":"
    static let readers = [
        "bool", "integer", "double", "float", "string", "object", "data", "array", "dictionary", "url", "stringArray",
    ]
    static let writers = ["set", "removeObject", "setValue"]

    /// Lints every `.swift` file under the paths (files or folders), sorted by file and line.
    public func lint(paths: [String]) throws -> [LintFinding] {
        var findings: [LintFinding] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
            if isFolder.boolValue {
                let enumerator = FileManager.default.enumerator(atPath: path)
                while let relative = enumerator?.nextObject() as? String {
                    if relative.hasSuffix(".swift") && !relative.contains(".build/") {
                        findings += lint(
                            file: path + "/" + relative,
                            source: try String(contentsOfFile: path + "/" + relative, encoding: .utf8))
                    }
                }
            } else {
                findings += lint(file: path, source: try String(contentsOfFile: path, encoding: .utf8))
            }
        }
        return findings.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    /// Lints one file's text.
    public func lint(file: String, source: String) -> [LintFinding] {
        let lines = source.components(separatedBy: "\n")
        let isWrapper =
            source.contains("storage-lint: wrapper") || allowedWrappers.contains { file.hasSuffix($0 + ".swift") }
        var findings: [LintFinding] = []
        func add(_ index: Int, _ rule: LintRule, _ message: String) {
            guard !lines[index].contains("storage-lint: ignore") else { return }
            findings.append(LintFinding(file: file, line: index + 1, rule: rule, message: message))
        }
        // Keys whose presence is tested: `object(forKey: K) == nil` / `!= nil`, `contains(...)`.
        var presenceTested: Set<String> = []
        for line in lines {
            for key in Self.keyArguments(in: line, methods: ["object"]) where line.contains("nil") {
                presenceTested.insert(key)
            }
        }
        var lastDelete: (line: Int, query: String)?
        for (index, line) in lines.enumerated() {
            let code = Self.stripComment(line)
            let bare = Self.withoutStringContents(code)
            if !isWrapper, bare.contains("UserDefaults.standard") || bare.contains("UserDefaults(suiteName:") {
                add(
                    index, .directUserDefaults,
                    "use the app's one defaults wrapper (or StrataDefaults) instead of UserDefaults directly")
            }
            let usesDefaults =
                code.contains(Self.keyLabel)
                && (code.contains("defaults") || code.contains("UserDefaults") || code.contains("store"))
            if usesDefaults {
                for literal in Self.literalKeys(in: code) {
                    add(
                        index, .stringLiteralKey,
                        "the key \"\(literal)\" is a string literal; declare keys in one place (an enum or DefaultsKey)"
                    )
                }
                for key in Self.keyArguments(in: code, methods: Self.writers) {
                    if let word = SensitiveKeyDetector.sensitiveWord(in: key) {
                        add(
                            index, .credentialInDefaults,
                            "'\(key)' looks like a credential ('\(word)'); store it in the keychain / secrets tier, never in defaults"
                        )
                    }
                }
                for key in Self.keyArguments(in: code, methods: ["bool", "integer", "double", "float"])
                where presenceTested.contains(key) {
                    add(
                        index, .unsetReadsAsFalse,
                        "'\(key)' is read with a typed getter that returns false/0 when unset, and its presence is tested elsewhere; read object(forKey:) or an optional"
                    )
                }
                if Self.writers.contains(where: { code.contains(".\($0)(") }) {
                    if code.contains("base64EncodedString") || code.contains("pngData") || code.contains("jpegData") {
                        add(
                            index, .largeValueInDefaults,
                            "encoded images and blobs slow every launch; store them in files")
                    } else if let literal = Self.longestLiteral(in: code), literal.count > 512 {
                        add(
                            index, .largeValueInDefaults,
                            "a \(literal.count)-character literal stored as a preference; keep defaults small, store it in files"
                        )
                    }
                }
            }
            if bare.contains("SecItemDelete(") {
                lastDelete = (index, Self.firstArgument(of: "SecItemDelete(", in: code))
            }
            if bare.contains("SecItemAdd("), let delete = lastDelete, index - delete.line <= 30 {
                add(
                    delete.line, .deleteThenAdd,
                    "the item is deleted then added: a crash in between loses it; update in place (SecItemUpdate) or replace atomically"
                )
                lastDelete = nil
            }
        }
        return findings
    }

    /// The line with the contents of its string literals removed (`"..."` becomes `""`).
    static func withoutStringContents(_ line: String) -> String {
        var out = ""
        var inString = false
        var escaped = false
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    out.append(character)
                }
                continue
            }
            if character == "\"" { inString = true }
            out.append(character)
        }
        return out
    }

    static func stripComment(_ line: String) -> String {
        guard let range = line.range(of: "//") else { return line }
        // Not inside a string literal: count quotes before it.
        let before = line[..<range.lowerBound]
        return before.filter { $0 == "\"" }.count % 2 == 0 ? String(before) : line
    }

    /// String literals passed as `forKey:`.
    static func literalKeys(in line: String) -> [String] {
        var keys: [String] = []
        var rest = Substring(line)
        while let range = rest.range(of: keyLabel) {
            rest = rest[range.upperBound...].drop { $0 == " " }
            if rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") {
                keys.append(String(rest[rest.index(after: rest.startIndex)..<end]))
            }
        }
        return keys
    }

    /// The key arguments (`"literal"`, `Key.name.rawValue`, `.name`) of calls to `methods`, as names.
    static func keyArguments(in line: String, methods: [String]) -> [String] {
        var keys: [String] = []
        for method in methods {
            var rest = Substring(line)
            while let range = rest.range(of: ".\(method)(") {
                rest = rest[range.upperBound...]
                guard let key = rest.range(of: keyLabel) else { break }
                let argument = rest[key.upperBound...].drop { $0 == " " }.prefix { $0 != ")" && $0 != "," }
                var name = argument.trimmingCharacters(in: .whitespaces)
                if name.hasPrefix("\"") { name = name.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                if name.hasSuffix(".rawValue") { name = String(name.dropLast(9)) }
                if let last = name.split(separator: ".").last { name = String(last) }
                if !name.isEmpty { keys.append(name) }
            }
        }
        return keys
    }

    static func longestLiteral(in line: String) -> String? {
        let parts = line.components(separatedBy: "\"")
        return stride(from: 1, to: parts.count, by: 2).map { parts[$0] }.max { $0.count < $1.count }
    }

    static func firstArgument(of call: String, in line: String) -> String {
        guard let range = line.range(of: call) else { return "" }
        return String(line[range.upperBound...].prefix { $0 != ")" })
    }
}
