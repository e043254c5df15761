/// Lowercase hexadecimal text for bytes, and back: keyring fields, key files, and byte values sent as text.
public enum Hex {
    /// Two lowercase digits per byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits (either case), or `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count / 2)
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = value(high), let l = value(low) else { return nil }
            result.append(h << 4 | l)
        }
        return result
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
