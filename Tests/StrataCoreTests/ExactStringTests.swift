import StrataCore
import Testing

@Suite("ExactString")
struct ExactStringTests {
    @Test func canonicallyEquivalentSpellingsStayDistinct() {
        let nfc = ExactString("caf\u{E9}")
        let nfd = ExactString("cafe\u{301}")
        #expect("caf\u{E9}" == "cafe\u{301}")  // What String does, and why this type exists.
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        #expect([nfc: 1, nfd: 2][nfd] == 2)
        #expect(nfc == ExactString("caf\u{E9}"))
        #expect(!"caf\u{E9}".isScalarIdentical(to: "cafe\u{301}"))
    }

    @Test func ordersByUTF8Bytes() {
        let sorted = [ExactString("b"), "a", "B", "\u{E9}", "e\u{301}"].sorted()
        #expect(sorted.map(\.string) == ["B", "a", "b", "e\u{301}", "\u{E9}"])
    }
}
