import Foundation
import Testing

/// One ```swift block of `README.md` or `Documentation/*.md` (with the blocks that continue it), and how the
/// snippet test treats it.
///
/// A block runs unless the line before its fence says otherwise, with an HTML comment that Markdown does not
/// show:
///
/// - `<!-- snippet: compile-only -->`: compiled, not run (it needs something the test cannot give, such as a
///   second machine).
/// - `<!-- snippet: package-manifest -->`: a `Package.swift`, checked with `swift package dump-package`.
/// - `<!-- snippet: postgres -->`: run with `STRATA_RECORDS_URL` naming a schema of its own on the test
///   server (`STRATA_POSTGRES_URL`); compiled only when there is no server, which `CI=true` refuses.
/// - `<!-- snippet: test -->`: a Swift Testing test, built in a test target of its own and run with `swift test`.
/// - `<!-- snippet: continues -->`: more of the previous block's program (the guide goes on with its variables);
///   the two are one program, run once.
/// - `<!-- snippet: defaults-keys -->` before a ```json block: a `defaults-keys.json` manifest; the next Swift
///   block is built with the `DefaultsKeysPlugin` over it, so it can use the keys the plugin generates.
/// - `<!-- snippet: setup -->` before a ```sh block: a command the guide tells the reader to run first; the
///   test runs it with `/bin/sh -e` in the folder of the next Swift block, before that block.
///
/// Any other marker is an error, so a block cannot escape the test by a typo.
struct DocumentationSnippet: Sendable, CustomTestStringConvertible {
    /// How a snippet is checked.
    enum Mode: String, Sendable, CaseIterable {
        case run
        case compileOnly = "compile-only"
        case packageManifest = "package-manifest"
        case postgres
        case test
    }

    /// A run of source lines from one fenced block.
    struct Part: Sendable {
        /// The document line of the block's first code line.
        var firstLine: Int
        /// The lines of code, without the fences.
        var lines: [String]

        /// The document line of the closing fence.
        var endLine: Int { firstLine + lines.count }
    }

    /// The document, relative to the repository (`README.md`, `Documentation/Files.md`).
    var document: String
    /// The document line of the opening fence.
    var line: Int
    var mode: Mode
    /// The block itself, then each block marked `continues` after it.
    var parts: [Part]
    /// Shell commands to run first, from ```sh blocks marked `setup`.
    var setup: [String] = []
    /// The `defaults-keys.json` the target is built with, from a ```json block marked `defaults-keys`.
    var keysManifest: String?

    var testDescription: String { "\(document):\(line)" }

    /// The executable (or test target) name in the generated package, an identifier: `snippet_files_7`
    /// (`swift test --filter` selects a test snippet by it).
    var targetName: String {
        let stem = (document as NSString).lastPathComponent.replacingOccurrences(of: ".md", with: "")
        return "snippet_\(stem.lowercased())_\(line)"
    }

    /// Whether a document line falls inside one of this snippet's blocks.
    func contains(line documentLine: Int) -> Bool {
        parts.contains { $0.firstLine - 1 <= documentLine && documentLine <= $0.endLine }
    }

    /// The source the generated package compiles: each part behind a `#sourceLocation` naming the document and
    /// the line, so the compiler's errors (and a trap's location) point into the Markdown file.
    func source(documentPath: String) -> String {
        var text = ""
        for part in parts {
            text += "#sourceLocation(file: \"\(documentPath)\", line: \(part.firstLine))\n"
            text += part.lines.joined(separator: "\n") + "\n"
        }
        return text + "#sourceLocation()\n"
    }
}

extension DocumentationSnippet {
    /// What went wrong while reading a document's blocks.
    struct ExtractionError: Error, CustomStringConvertible {
        var description: String
    }

    /// The documents whose Swift blocks are checked: the README and every guide.
    static func documents(in repository: URL) throws -> [String] {
        let guides = try FileManager.default.contentsOfDirectory(
            atPath: repository.appending(path: "Documentation").path)
        return ["README.md"] + guides.filter { $0.hasSuffix(".md") }.sorted().map { "Documentation/" + $0 }
    }

    /// Every Swift snippet of the README and the guides.
    static func all(in repository: URL) throws -> [DocumentationSnippet] {
        try documents(in: repository).flatMap { document in
            let text = try String(contentsOf: repository.appending(path: document), encoding: .utf8)
            return try extract(from: text, document: document)
        }
    }

    /// The Swift snippets of one Markdown document.
    /// - Throws: ``ExtractionError`` for an unknown marker, a marker on a block it does not apply to, a
    ///   `continues` block with nothing before it, a `setup` block with no Swift block after it, or a fence left
    ///   open.
    static func extract(from text: String, document: String) throws -> [DocumentationSnippet] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var snippets: [DocumentationSnippet] = []
        var pending = DocumentationSnippet(document: document, line: 0, mode: .run, parts: [])
        var index = 0
        while index < lines.count {
            let fence = lines[index]
            guard fence.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = fence.dropFirst(3).trimmingCharacters(in: .whitespaces)
            let fenceLine = index + 1
            guard let close = lines[(index + 1)...].firstIndex(where: { $0.hasPrefix("```") }) else {
                throw ExtractionError(description: "\(document):\(fenceLine): the code block is never closed")
            }
            let body = Array(lines[(index + 1)..<close])
            let marker = try marker(before: index, in: lines, document: document)
            index = close + 1
            switch (language, marker) {
            case ("swift", nil):
                snippets.append(snippet(fenceLine, .run, body, &pending))
            case ("swift", "continues"):
                guard !snippets.isEmpty else {
                    throw ExtractionError(
                        description: "\(document):\(fenceLine): a block marked 'continues' has no Swift block before it"
                    )
                }
                snippets[snippets.count - 1].parts.append(Part(firstLine: fenceLine + 1, lines: body))
            case ("swift", let name?):
                guard let mode = Mode(rawValue: name), mode != .run else {
                    throw ExtractionError(
                        description:
                            "\(document):\(fenceLine): unknown snippet marker '\(name)' (known: \(knownMarkers))")
                }
                snippets.append(snippet(fenceLine, mode, body, &pending))
            case ("sh", "setup"):
                pending.setup.append(body.joined(separator: "\n"))
            case ("json", "defaults-keys"):
                pending.keysManifest = body.joined(separator: "\n") + "\n"
            case (_, nil):
                break
            case (_, let name?):
                throw ExtractionError(
                    description:
                        "\(document):\(fenceLine): the marker '\(name)' does not apply to a '\(language)' block")
            }
        }
        guard pending.setup.isEmpty, pending.keysManifest == nil else {
            throw ExtractionError(
                description: "\(document): a 'setup' or 'defaults-keys' block has no Swift block after it")
        }
        return snippets
    }

    static let knownMarkers =
        (Mode.allCases.filter { $0 != .run }.map(\.rawValue) + ["continues", "setup", "defaults-keys"])
        .joined(separator: ", ")

    /// A new snippet from a block, taking the setup and keys manifest that came before it (`pending`).
    private static func snippet(
        _ fenceLine: Int, _ mode: Mode, _ body: [String], _ pending: inout DocumentationSnippet
    ) -> DocumentationSnippet {
        var snippet = pending
        snippet.line = fenceLine
        snippet.mode = mode
        snippet.parts = [Part(firstLine: fenceLine + 1, lines: body)]
        pending.setup = []
        pending.keysManifest = nil
        return snippet
    }

    /// The name in a `<!-- snippet: NAME -->` comment on the line before a fence (blank lines between are
    /// allowed), or `nil`.
    private static func marker(before fenceIndex: Int, in lines: [String], document: String) throws -> String? {
        var index = fenceIndex - 1
        while index >= 0, lines[index].trimmingCharacters(in: .whitespaces).isEmpty { index -= 1 }
        guard index >= 0 else { return nil }
        let line = lines[index].trimmingCharacters(in: .whitespaces)
        guard line.hasPrefix("<!--"), line.contains("snippet") else { return nil }
        let prefix = "<!-- snippet:"
        guard line.hasPrefix(prefix), line.hasSuffix("-->") else {
            throw ExtractionError(
                description: "\(document):\(index + 1): a snippet marker is written '<!-- snippet: NAME -->'")
        }
        return line.dropFirst(prefix.count).dropLast(3).trimmingCharacters(in: .whitespaces)
    }
}
