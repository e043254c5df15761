import Foundation
import StrataCore
import Testing

@Suite("StorageError")
struct StorageErrorTests {
    /// Scalars that must never reach a terminal raw: C0 (ESC), DEL, C1 (CSI), direction overrides and isolates,
    /// the line and paragraph separators.
    static let hostile: [Unicode.Scalar] = ["\u{1B}", "\u{7F}", "\u{9B}", "\u{85}", "\u{202E}", "\u{2067}", "\u{2028}"]

    @Test(arguments: hostile)
    func everyPartOfTheDescriptionIsEscaped(_ scalar: Unicode.Scalar) {
        let name = "entry" + String(scalar) + "[2J"
        var error = StorageError(
            .corrupt, "the archive entry \(name) is damaged", tier: .files, key: name, path: "/store/" + name,
            recovery: "Remove \(name) from the archive")
        error.collection = name
        error.operation = "import " + name
        let printed = error.description
        #expect(!printed.unicodeScalars.contains(scalar), "\(Array(printed.unicodeScalars))")
        let escaped = "\\u{" + String(scalar.value, radix: 16) + "}"
        // Message, collection, key, path, operation and recovery each show the scalar escaped.
        #expect(printed.components(separatedBy: escaped).count - 1 == 6, "\(printed)")
    }

    @Test func printableTextIsUnchanged() {
        let error = StorageError(.notFound, "no file caf\u{E9} 日本語", key: "naïve résumé.txt")
        #expect(error.description == #"not-found: no file caf\#u{E9} 日本語 (key "naïve résumé.txt")"#)
        #expect("plain".escapedForDisplay == "plain")
        #expect(#"a\b"#.escapedForDisplay == #"a\\b"#)
        #expect("say \"hi\"\n".escapedForDisplay == "say \"hi\"\\n")
    }

    @Test func quotesInFieldsAreEscaped() {
        let error = StorageError(.invalidKey, "refused", key: #"a"b"#)
        #expect(error.description.contains(#"key "a\"b""#))
    }
}
