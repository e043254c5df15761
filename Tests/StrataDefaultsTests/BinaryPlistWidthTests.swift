import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataDefaults

/// A binary plist's trailer gives the width of its offsets and of its object references: any of 1 to 8 bytes.
/// libplist writes 3, 5, 6 and 7 as well as 1, 2, 4 and 8; the toolchain's `plutil -lint` and Python's `plistlib`
/// read them all. They were refused as `corrupt` ("the trailer gives impossible offset or reference sizes").
@Suite("Binary plists: every offset and reference width")
struct BinaryPlistWidthTests {
    /// Writes, for every offset width O and reference width R from 0 to 9, `oOrR.bplist` holding ``expected``, and
    /// `oOrR-reference.bplist` and `oOrR-offset.bplist` whose last reference, or last offset, is one past what the
    /// document holds. Python's own writer only makes widths 1, 2, 4 and 8, so the bytes are laid out here.
    static let builder = #"""
        import struct, sys
        def ascii(text):
            return bytes([0x50 | len(text)]) + text.encode()
        def utf16(text):
            units = text.encode("utf-16-be")
            return bytes([0x60 | len(units) // 2]) + units
        def big_endian(value, width):
            return value.to_bytes(width, "big") if width else b""
        def build(offset_width, reference_width, bad=None):
            def ref(index):
                return big_endian(index, reference_width)
            count = 11
            objects = [
                bytes([0xD4]) + b"".join(ref(i) for i in (1, 2, 3, 4)) + b"".join(ref(i) for i in (5, 6, 7, 8)),
                ascii("alpha"), ascii("beta"), ascii("gamma"), ascii("delta"),
                bytes([0xA3]) + ref(9) + ref(10) + ref(count if bad == "reference" else 2),
                utf16("caf\u00e9 \u65e5\u672c"),
                bytes([0x10, 0x2A]),
                bytes([0x44]) + b"\x00\x01\xfe\xff",
                ascii("x"),
                bytes([0x23]) + struct.pack(">d", -0.125),
            ]
            out = bytearray(b"bplist00")
            offsets = []
            for item in objects:
                offsets.append(len(out))
                out += item
            table = len(out)
            if bad == "offset":
                offsets[-1] = table
            for offset in offsets:
                out += big_endian(offset, offset_width)
            out += bytes(6) + bytes([offset_width, reference_width]) + struct.pack(">QQQ", count, 0, table)
            return bytes(out)
        folder = sys.argv[1]
        for o in range(10):
            for r in range(10):
                for bad in (None, "reference", "offset"):
                    name = "o%dr%d%s.bplist" % (o, r, "" if bad is None else "-" + bad)
                    open(folder + "/" + name, "wb").write(build(o, r, bad))
        """#

    /// Reads every `oOrR.bplist` of 1 to 8 bytes with `plistlib`, checks it holds ``expected``, and prints `read N`.
    static let reader = #"""
        import plistlib, sys
        expected = {"alpha": ["x", -0.125, "beta"], "beta": "caf\u00e9 \u65e5\u672c", "gamma": 42,
                    "delta": b"\x00\x01\xfe\xff"}
        read = 0
        for o in range(1, 9):
            for r in range(1, 9):
                with open("%s/o%dr%d.bplist" % (sys.argv[1], o, r), "rb") as file:
                    value = plistlib.load(file)
                assert value == expected, (o, r, value)
                read += 1
        print("read", read)
        """#

    static let expected: PropertyListValue = .dictionary([
        "alpha": .array([.string("x"), .real(-0.125), .string("beta")]), "beta": .string("caf\u{E9} \u{65E5}\u{672C}"),
        "gamma": .integer(42), "delta": .data(Data([0, 1, 0xFE, 0xFF])),
    ])

    static func python(_ script: String, _ folder: String) throws -> ChildProcess.Result {
        try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, folder])
    }

    @Test func everyWidthFromOneToEightIsReadAsPlutilAndPlistlibReadIt() throws {
        let directory = try TemporaryDirectory(prefix: "strata-plist-widths")
        defer { directory.remove() }
        let built = try Self.python(Self.builder, directory.path)
        try #require(built.status == 0, "\(built.standardError)")
        let plistlib = try Self.python(Self.reader, directory.path)
        #expect(plistlib.standardOutput == "read 64\n", "\(plistlib.standardError)")
        for offsetWidth in 1...8 {
            for referenceWidth in 1...8 {
                let path = directory.appending("o\(offsetWidth)r\(referenceWidth)")
                let document = try Data(contentsOf: URL(fileURLWithPath: path + ".bplist"))
                #expect(
                    try PropertyListFormat.decode(document) == Self.expected,
                    "offsets \(offsetWidth), refs \(referenceWidth)")
                if let plutil = DefaultsFileTests.plutil {
                    let lint = try ChildProcess.run(URL(fileURLWithPath: plutil), ["-lint", path + ".bplist"])
                    #expect(lint.status == 0, "\(lint.standardOutput)")
                }
                // The same bounds as at the usual widths: a reference or an offset one past the end is refused.
                for bad in ["reference", "offset"] {
                    let damaged = try Data(contentsOf: URL(fileURLWithPath: path + "-" + bad + ".bplist"))
                    let error = #expect(throws: PropertyListError.self) { try PropertyListFormat.decode(damaged) }
                    #expect(error?.message.contains(bad == "reference" ? "a reference to object" : "an offset") == true)
                }
            }
        }
    }

    /// A width of 0 bytes, or of more than 8, is refused (as Apple's reader refuses it).
    @Test(arguments: [(0, 1), (1, 0), (0, 0), (9, 1), (1, 9), (9, 9)])
    func aWidthOfZeroOrPastEightIsRefused(widths: (offset: Int, reference: Int)) throws {
        let directory = try TemporaryDirectory(prefix: "strata-plist-widths")
        defer { directory.remove() }
        let built = try Self.python(Self.builder, directory.path)
        try #require(built.status == 0, "\(built.standardError)")
        let document = try Data(
            contentsOf: URL(fileURLWithPath: directory.appending("o\(widths.offset)r\(widths.reference).bplist")))
        let error = #expect(throws: PropertyListError.self) { try PropertyListFormat.decode(document) }
        #expect(error?.message == "the trailer gives impossible offset or reference sizes")
    }
}
