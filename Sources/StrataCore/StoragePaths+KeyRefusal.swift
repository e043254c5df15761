extension StoragePaths {
    /// The first rule a key breaks, found in one pass over its UTF-8 bytes (see ``StoragePaths/validateKey(_:)``).
    ///
    /// The rules, in the order they are reported: the key is not empty, at most ``maximumKeyLength`` bytes, and
    /// relative; no scalar is NUL, a control character or direction override
    /// (`Unicode.Scalar.isControlOrDirectionality`), or a backslash; no component is empty, `.` or `..`, longer than
    /// ``maximumComponentLength`` bytes, or starts with ``reservedPrefix``. Every rule on scalars comes before every
    /// rule on components: the first refused scalar is reported, else the first refused component.
    enum KeyRefusal: Sendable, Hashable {
        case empty
        case tooLong(bytes: Int)
        case absolute
        case nul
        case controlOrDirectionality(Unicode.Scalar)
        case backslash
        case emptyComponent
        /// A `.` component (`isParent` false) or a `..` one.
        case dotComponent(isParent: Bool)
        case componentTooLong(bytes: Int)
        case reserved

        /// What the error says: which rule the key breaks.
        var message: String {
            switch self {
            case .empty:
                return "the key is empty"
            case .tooLong(let bytes):
                return "the key is \(bytes) bytes long; the limit is \(maximumKeyLength)"
            case .absolute:
                return "the key is an absolute path"
            case .nul:
                return "the key contains a NUL byte"
            case .controlOrDirectionality(let scalar):
                return "the key contains a control character or direction override (U+"
                    + String(scalar.value, radix: 16, uppercase: true) + ")"
            case .backslash:
                return "the key contains a backslash, a path separator on other systems"
            case .emptyComponent:
                return "the key has an empty component ('//' or a trailing '/')"
            case .dotComponent(let isParent):
                return "the key has a '\(isParent ? ".." : ".")' component, which could lead out of the store"
            case .componentTooLong(let bytes):
                return "a component of the key is \(bytes) bytes long; the limit is \(maximumComponentLength)"
            case .reserved:
                return "names starting with '\(reservedPrefix)' are reserved for Strata's own files"
            }
        }

        private static let slash = UInt8(ascii: "/")
        private static let dot = UInt8(ascii: ".")
        private static let backslashByte = UInt8(ascii: "\\")
        private static let reservedBytes = Array(reservedPrefix.utf8)

        /// The first rule `key` (valid UTF-8, as every Swift string's bytes are) breaks, or `nil` when it breaks
        /// none. Allocates nothing.
        static func first(in key: UnsafeBufferPointer<UInt8>) -> KeyRefusal? {
            let count = key.count
            if count == 0 { return .empty }
            if count > maximumKeyLength { return .tooLong(bytes: count) }
            if key[0] == slash { return .absolute }
            var componentRefusal: KeyRefusal?
            var componentStart = 0
            var index = 0
            while index < count {
                let byte = key[index]
                if byte < 0x80 {
                    if byte == slash {
                        if componentRefusal == nil {
                            componentRefusal = refusal(ofComponent: key, from: componentStart, to: index)
                        }
                        componentStart = index + 1
                    } else if byte == 0 {
                        return .nul
                    } else if byte < 0x20 || byte == 0x7F {
                        return .controlOrDirectionality(Unicode.Scalar(byte))
                    } else if byte == backslashByte {
                        return .backslash
                    }
                    index += 1
                    continue
                }
                let (value, length) = decodeScalar(key, at: index)
                if let scalar = Unicode.Scalar(value), scalar.isControlOrDirectionality {
                    return .controlOrDirectionality(scalar)
                }
                index += length
            }
            return componentRefusal ?? refusal(ofComponent: key, from: componentStart, to: count)
        }

        /// The rule the component `key[start..<end]` breaks, if any.
        private static func refusal(ofComponent key: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
            -> KeyRefusal?
        {
            let length = end - start
            if length == 0 { return .emptyComponent }
            if length <= 2, key[start] == dot, length == 1 || key[start + 1] == dot {
                return .dotComponent(isParent: length == 2)
            }
            if length > maximumComponentLength { return .componentTooLong(bytes: length) }
            // Most components do not start with a dot: only those are compared with the reserved prefix.
            guard key[start] == dot, length >= reservedBytes.count else { return nil }
            for offset in 1..<reservedBytes.count where key[start + offset] != reservedBytes[offset] { return nil }
            return .reserved
        }

        /// The scalar value whose UTF-8 encoding starts at `key[index]` (a lead byte, 0xC2 or above), and the
        /// length of that encoding. A truncated sequence (never in a Swift string) reads as U+FFFD to the end.
        private static func decodeScalar(_ key: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
            let lead = UInt32(key[index])
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            guard index + length <= key.count else { return (0xFFFD, key.count - index) }
            var value = lead & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length { value = value << 6 | (UInt32(key[index + offset]) & 0x3F) }
            return (value, length)
        }
    }
}
