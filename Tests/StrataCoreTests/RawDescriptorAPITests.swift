import Foundation
import Testing

/// Issue 34's acceptance line, kept true: no module's `package` or `public` API passes a file descriptor as a raw
/// `Int32` (StrataSystem's `FileDescriptor` does). Every `package` or `public` declaration under `Sources/` whose
/// signature mentions `Int32` — a parameter, a result, a stored property, a closure's type, a public protocol's
/// requirement, a public enum's case — must be one of the few below, which are not descriptors.
@Suite("No raw descriptors in package or public API")
struct RawDescriptorAPITests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources").path

    /// `Module/File.swift name`: the declarations allowed to mention `Int32`, and why.
    static let allowed: [String: String] = [
        "StrataSystem/FileDescriptor.swift rawValue": "the descriptor's own number",
        "StrataSystem/FileDescriptor.swift init": "FileDescriptor(rawValue:)",
        "StrataSystem/FileDescriptor+Opening.swift rawValue": "the O_ constants of AccessMode and OpenOptions",
        "StrataSystem/FileDescriptor+Opening.swift init": "AccessMode and OpenOptions from their O_ constants",
        "StrataSystem/Syscalls.swift code": "Errno's code",
        "StrataSystem/Syscalls.swift init": "Errno(_:), from a code",
        "StrataSystem/Syscalls.swift flock": "the LOCK_ operation",
        "StrataSystem/Syscalls+Directories.swift unlinkat": "the AT_ flags",
        "StrataSystem/Syscalls+Times.swift setModificationTime": "nanoseconds",
        "StrataSystem/Syscalls+Interrupts.swift caughtInterrupt": "a signal",
        "StrataSystem/Syscalls+Interrupts.swift raiseDefault": "a signal",
        "StrataSystem/Syscalls+Signal.swift sendSignal": "a signal and a process id",
        "StrataSystem/Syscalls+Signal.swift processID": "a process id",
        "StrataSystem/InjectedFault.swift error": "an errno code",
        "StrataCore/CapturedFile.swift nanoseconds": "nanoseconds",
        "StrataRecords/Codec/RecordReader.swift decode": "a record field of that width, as KeyedDecodingContainer's",
        "StrataCore/CapturedFile.swift init": "Timespec(seconds:nanoseconds:)",
        "StrataCore/StorageError.swift errno": "an errno code",
        "StrataCore/StorageError.swift init": "an errno code",
        "StrataCore/StorageError.swift system": "an errno code",
        "StrataFiles/Export/ExportOptions.swift level": "a compression level",
        "StrataFiles/Export/ExportOptions.swift init": "a compression level",
        "StrataFiles/Archives/LibDeflate.swift init": "a compression level",
        "StrataFiles/Archives/ZipBuilder.swift init": "a compression level, as ExportOptions.level",
        "StrataPostgresClient/PostgresConnection.swift serverProcessID": "a server's process id",
        "StrataPostgresClient/PostgresPool.swift idleServerProcessIDs": "servers' process ids",
        "StrataPostgresClient/PostgresFence.swift holder": "a server's process id",
        "StrataPostgresClient/PostgresFence.swift init": "a server's process id",
        "StrataSQLite/SQLiteErrorDetail.swift extendedResultCode": "an SQLite result code",
        "StrataSQLite/SQLiteErrorDetail.swift init": "an SQLite result code",
        "StrataS3/S3ErrorDetail.swift curlCode": "a libcurl code",
        "StrataS3/S3ErrorDetail.swift init": "a libcurl code",
        "StrataTestSupport/ChildProcess.swift status": "an exit status",
        "StrataTestSupport/ChildProcess.swift processIdentifier": "a process id",
        "StrataTestSupport/ChildProcess.swift kill": "a signal",
        "StrataTestSupport/PseudoTerminal.swift signal": "a signal",
    ]

    @Test func noPackageOrPublicDeclarationTakesOrReturnsARawInt32() throws {
        let files = try #require(FileManager.default.subpaths(atPath: Self.sources)).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "the sources were not found at \(Self.sources)")
        var found: Set<String> = []
        for file in files.sorted() {
            let text = try String(contentsOfFile: Self.sources + "/" + file, encoding: .utf8)
            for (name, header) in DeclarationScanner.accessibleDeclarations(in: text)
            where header.contains(/\bInt32\b/) {
                let entry = file + " " + name
                found.insert(entry)
                #expect(
                    Self.allowed[entry] != nil,
                    """
                    \(entry) mentions Int32 in package or public API: `\(header)`. A file descriptor is a \
                    FileDescriptor (StrataSystem); anything else goes in RawDescriptorAPITests.allowed with what it is.
                    """)
            }
        }
        for entry in Self.allowed.keys.sorted() where !found.contains(entry) {
            Issue.record("\(entry) is allowed to mention Int32 but no longer does: remove it from the list")
        }
    }

    @Test func theScannerSeesSignaturesOverSeveralLinesProtocolsAndCases() {
        let text = """
            package enum Sys {
                /// A comment: package func commented(_ fd: Int32)
                package static func open(
                    _ path: String, flags: Int32
                ) throws(Errno)
                    -> Int32
                {
                    let inside: Int32 = "}{(".count
                    return inside
                }
                static func hidden(_ fd: Int32) {}
            }
            public protocol Sink {
                func add(contentsOf descriptor: Int32) throws
            }
            public enum Body { case descriptor(Int32) }
            struct Internal { package var fd: Int32 }
            """
        let declarations = DeclarationScanner.accessibleDeclarations(in: text).map(\.name)
        #expect(declarations == ["Sys", "open", "Sink", "add", "Body", "descriptor", "fd"])
    }
}

/// Finds the `package`, `public` and `open` declarations of a Swift file with their headers (the text before the
/// body's `{`): comments and string literals are skipped, a header continues over lines while a parenthesis is open
/// or the next line starts with `->`, `throws`, `where` or `{`, and a public or package protocol's members, an
/// extension's members and an enum's cases take the access of what encloses them. A lexer, not a parser: enough for
/// this package's sources, which `swift format` keeps regular.
enum DeclarationScanner {
    private static let modifiers =
        #"(?:(?:public|package|open|private|fileprivate|internal)(?:\(set\))?|static|class|final|override|mutating"#
        + #"|nonmutating|convenience|required|lazy|weak|unowned|indirect|nonisolated(?:\(unsafe\))?|dynamic)"#
    private static let attributes = #"(?:@[\w.]+(?:\([^)]*\))?\s+)*"#
    nonisolated(unsafe) private static let declaration = try! Regex(
        "^" + attributes + "((?:" + modifiers + #"\s+)*)(func|init|var|let|subscript|case|typealias|protocol|enum"#
            + #"|struct|class|actor|extension)\b\s*([^\s(:<=,{]*)"#)

    static func accessibleDeclarations(in text: String) -> [(name: String, header: String)] {
        let code = Array(withoutCommentsAndStrings(text))
        var found: [(name: String, header: String)] = []
        // The enclosing bodies: the kind of declaration that opened each and its access.
        var containers: [(kind: String, access: String?)] = []
        var statement = ""
        var parentheses = 0

        func finish(opensBody: Bool) {
            let header = statement.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            statement = ""
            var opened: (kind: String, access: String?) = ("body", nil)
            defer { if opensBody { containers.append(opened) } }
            guard let match = try? declaration.firstMatch(in: header),
                let modifiers = match.output[1].substring, let keyword = match.output[2].substring.map(String.init)
            else { return }
            let words = modifiers.split { !$0.isLetter }
            var access = ["public", "package", "open", "private", "fileprivate", "internal"].first {
                words.contains(Substring($0))
            }
            if access == nil, let enclosing = containers.last,
                ["protocol", "extension"].contains(enclosing.kind) || (enclosing.kind == "enum" && keyword == "case")
            {
                access = enclosing.access
            }
            let name = keyword == "init" ? "init" : match.output[3].substring.map(String.init) ?? keyword
            if ["protocol", "enum", "struct", "class", "actor", "extension"].contains(keyword) {
                opened = (keyword, access)
            }
            if ["public", "package", "open"].contains(access) { found.append((name.isEmpty ? keyword : name, header)) }
        }

        var index = 0
        while index < code.count {
            let character = code[index]
            defer { index += 1 }
            if parentheses > 0 {
                if character == "(" || character == "[" { parentheses += 1 }
                if character == ")" || character == "]" { parentheses -= 1 }
                statement.append(character)
                continue
            }
            switch character {
            case "(", "[":
                parentheses += 1
                statement.append(character)
            case "{":
                finish(opensBody: true)
            case "}":
                finish(opensBody: false)
                _ = containers.popLast()
            case ";":
                finish(opensBody: false)
            case "\n":
                let rest = String(code[(index + 1)..<min(code.count, index + 80)]).drop { $0.isWhitespace }
                if ["->", "throws", "rethrows", "async", "where", "{"].contains(where: { rest.hasPrefix($0) }) {
                    statement.append(" ")
                } else {
                    finish(opensBody: false)
                }
            default:
                statement.append(character)
            }
        }
        finish(opensBody: false)
        return found
    }

    /// The text with comments removed and every string literal left empty (`""`), line breaks kept.
    static func withoutCommentsAndStrings(_ text: String) -> String {
        let characters = Array(text)
        var out = ""
        var index = 0
        // One entry per interpolation `\(...)` being read inside a string: the parentheses open within it.
        var interpolations: [Int] = []
        var inString = false

        func starts(_ prefix: String, at position: Int) -> Bool {
            var position = position
            for character in prefix {
                guard position < characters.count, characters[position] == character else { return false }
                position += 1
            }
            return true
        }
        func skip(to terminator: String, from position: Int) -> Int {
            var end = position
            while end < characters.count, !starts(terminator, at: end) {
                if characters[end] == "\n" { out.append("\n") }
                end += 1
            }
            return min(characters.count, end + terminator.count)
        }

        while index < characters.count {
            let character = characters[index]
            if inString {
                if character == "\\", starts("\\(", at: index) {
                    interpolations.append(0)
                    inString = false
                    index += 2
                } else if character == "\\" {
                    index += 2
                } else {
                    if character == "\"" { inString = false }
                    if character == "\n" { out.append("\n") }
                    index += 1
                }
                continue
            }
            if starts("//", at: index) {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if starts("/*", at: index) {
                index = skip(to: "*/", from: index + 2)
            } else if starts("\"\"\"", at: index) {
                if interpolations.isEmpty { out.append("\"\"") }
                index = skip(to: "\"\"\"", from: index + 3)
            } else if starts("#\"", at: index) {
                if interpolations.isEmpty { out.append("\"\"") }
                index = skip(to: "\"#", from: index + 2)
            } else if character == "\"" {
                if interpolations.isEmpty { out.append("\"\"") }
                inString = true
                index += 1
            } else if !interpolations.isEmpty {
                if character == "(" { interpolations[interpolations.count - 1] += 1 }
                if character == ")" {
                    if interpolations[interpolations.count - 1] == 0 {
                        interpolations.removeLast()
                        inString = true
                    } else {
                        interpolations[interpolations.count - 1] -= 1
                    }
                }
                index += 1
            } else {
                out.append(character)
                index += 1
            }
        }
        return out
    }
}
