import StrataCore
import StrataTestSupport
import Testing

/// The one-pass key validator against the one it replaced (`LegacyKeyValidator`), over a generated corpus of
/// hostile and benign keys: every key gets the same verdict, and a refused key the same error.
@Suite("StoragePaths key validation, old against new")
struct StoragePathsDifferentialTests {
    /// Pieces keys are made of: benign text, separators, dots, the reserved prefix, every kind of refused scalar,
    /// and look-alikes that must pass (a one-dot leader is not a dot, a zero-width joiner is not a bidi control).
    static let pieces: [String] = [
        "a", "report", "x.pdf", "caf\u{E9}", "cafe\u{301}", "日本語", "😀", "\u{10FFFF}", "\u{E000}", " ", "-", "~",
        "/", "/", "//", ".", "..", "...", ".a", "a.", "./", "../", "/.", "/..", ".strata-", ".strata", ".strata-x",
        "\0", "\n", "\t", "\u{1B}", "\u{1F}", "\u{7F}", "\u{80}", "\u{85}", "\u{9B}", "\u{9F}", "\u{A0}", "\u{AD}",
        "\u{61C}", "\u{200B}", "\u{200D}", "\u{200E}", "\u{200F}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}",
        "\u{2066}", "\u{2069}", "\u{206A}", "\u{FEFF}", "\u{2024}", "\u{FF0E}", "\u{FE52}", "\u{301}", "\u{338}",
        "\\", "\u{FF3C}", "\u{2215}", "\u{E0001}", "\u{1D173}",
        String(repeating: "b", count: 100), String(repeating: "\u{E9}", count: 60), String(repeating: "日", count: 40),
    ]

    static func verdict(_ validate: (String) throws(StorageError) -> Void, _ key: String) -> StorageError? {
        do throws(StorageError) {
            try validate(key)
            return nil
        } catch {
            return error
        }
    }

    static func expectSameVerdict(_ key: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let old = verdict(LegacyKeyValidator.validateKey, key)
        let new = verdict(StoragePaths.validateKey, key)
        let shown = key.debugDescription.prefix(200)
        #expect(
            (old == nil) == (new == nil),
            "\(shown): old \(old?.message ?? "accepts"), new \(new?.message ?? "accepts")",
            sourceLocation: sourceLocation)
        guard let old, let new else { return }
        #expect(new.code == old.code, "\(shown)", sourceLocation: sourceLocation)
        #expect(new.message == old.message, "\(shown)", sourceLocation: sourceLocation)
        #expect(
            new.key.map(\.unicodeScalars).map(Array.init) == old.key.map(\.unicodeScalars).map(Array.init),
            sourceLocation: sourceLocation)
        #expect(new.recovery == old.recovery, "\(shown)", sourceLocation: sourceLocation)
        #expect(new.tier == old.tier && new.path == old.path, "\(shown)", sourceLocation: sourceLocation)
    }

    @Test func randomKeysOfHostileAndBenignPiecesGetTheSameVerdict() {
        var generator = SeededGenerator(seed: 0x5EED_0018)
        for _ in 0..<40_000 {
            var key = ""
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                key += Self.pieces.randomElement(using: &generator)!
            }
            Self.expectSameVerdict(key)
        }
    }

    @Test func everyScalarAloneAndInsideAKeyGetsTheSameVerdict() {
        let ranges: [ClosedRange<UInt32>] = [
            0...0x3000, 0xD7F0...0xD7FF, 0xE000...0xE0FF, 0xFDC0...0xFFFF, 0x1_0000...0x1_0100, 0x1_D100...0x1_D200,
            0xE_0000...0xE_0200, 0x10_FF00...0x10_FFFF,
        ]
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let text = String(scalar)
                for key in [text, "a" + text + "b", "dir/" + text, text + "/x", "." + text, ".." + text, "/" + text] {
                    Self.expectSameVerdict(key)
                }
            }
        }
    }

    @Test func keysAndComponentsAtTheirLengthLimitsGetTheSameVerdict() {
        for filler in ["a", "\u{E9}", "日", "😀"] {
            for length in 250...260 {
                let component =
                    String(repeating: "z", count: length % filler.utf8.count)
                    + String(
                        repeating: filler, count: length / filler.utf8.count)
                for key in [component, "a/" + component, component + "/a", component + "/" + component] {
                    Self.expectSameVerdict(key)
                }
            }
            for length in 1020...1028 {
                let body =
                    String(repeating: "k", count: length % filler.utf8.count)
                    + String(repeating: filler, count: length / filler.utf8.count)
                Self.expectSameVerdict(body)
                Self.expectSameVerdict(String(body.prefix(200)) + "/" + String(body.dropFirst(200).prefix(200)))
            }
        }
        for key in [
            "", "/", "//", ".", "..", "a/", "a//", "/a", ".strata-", ".strata", "a/.strata-", "\0", "\\",
            ".strata-\0", "../\u{202E}", "a//\u{85}", "\u{301}/..", String(repeating: "x/", count: 600),
        ] {
            Self.expectSameVerdict(key)
        }
    }
}
