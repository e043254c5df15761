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

    /// An engine's detail, as a test declares one.
    struct RetryDetail: StorageErrorDetail {
        var attempts: Int
        var description: String { "\(attempts) attempt(s)" }
    }

    @Test func aDetailPrintsAfterTheSharedPlacesAndTakesPartInEquality() {
        var error = StorageError(.conflict, "kept conflicting", tier: .records, key: "k")
        error.operation = "write"
        error.detail = RetryDetail(attempts: 3)
        #expect(error.description == #"conflict: kept conflicting (tier records, key "k", during write, 3 attempt(s))"#)
        #expect((error.detail as? RetryDetail)?.attempts == 3)
        var other = error
        #expect(other == error && other.hashValue == error.hashValue)
        other.updateDetail(RetryDetail(attempts: 0)) { $0.attempts += 1 }
        #expect((other.detail as? RetryDetail)?.attempts == 4)
        #expect(other != error)
        other.detail = nil
        #expect(other.description == #"conflict: kept conflicting (tier records, key "k", during write)"#)
    }

    @Test func quotesInFieldsAreEscaped() {
        let error = StorageError(.invalidKey, "refused", key: #"a"b"#)
        #expect(error.description.contains(#"key "a\"b""#))
    }
}
