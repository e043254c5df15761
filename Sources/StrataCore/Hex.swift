/// Lowercase hexadecimal text for bytes, and back: keyring fields, key files, and byte values sent as text.
public enum Hex {
    /// Two lowercase digits per byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        // One generic call, then a loop over contiguous bytes straight into the string's storage: this names every
        // secret item's file, on every write of a new one.
        bytes.withContiguousStorageIfAvailable { encode(UnsafeRawBufferPointer($0)) } ?? encode(Array(bytes))
    }

    private static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = digit(byte >> 4)
                out[2 * index + 1] = digit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    /// The lowercase digit of a value below 16.
    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// The bytes of an even number of hex digits (either case), or `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count / 2)
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = digitValue(high), let l = digitValue(low) else { return nil }
            result.append(h << 4 | l)
        }
        return result
    }

    /// The value of one hex digit (either case), or `nil` for any other byte.
    package static func digitValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
