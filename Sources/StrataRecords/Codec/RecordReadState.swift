/// The state of one record's read by ``RecordReader``s, shared by the record's reader and those of its nested
/// objects.
///
/// A record read in the order it was written (what a hand-written ``RecordDecodable/init(record:)`` that mirrors
/// the type's `Encodable` does) is read in one pass over its bytes: each member is the one asked for next, each
/// value is checked as ``JSONTape`` checks it and made straight from its bytes, and no structure is noted. Anything
/// else — a member asked out of order, one of another type, a missing one, a name with escapes, an object left
/// with members unread, a type handed to `Decodable` — makes the tape of the whole document (``tapeForReads()``),
/// and from then on every read is answered from it as the tape-based reader would. Errors come from the tape path
/// only, so they are exactly those of a read on the tape.
struct RecordReadState {
    let bytes: UnsafeRawBufferPointer
    /// The address of `bytes` and their count.
    let base: UnsafePointer<UInt8>
    let count: Int
    /// Just past the last value read in order (or the current object's `{`).
    var position: Int
    /// The offset of the `{` of the object being read in order, and how many of its members were read.
    var object = -1
    var members = 0
    /// The names of the members read in order, `(start << 32) | count` of the bytes between their quotes, for the
    /// repeated-name check: those of the current object from `objectNames` on. Storage for ``nameCapacity``,
    /// lent by the caller (a reader of more names goes to the tape).
    let names: UnsafeMutablePointer<UInt64>
    var nameCount = 0
    var objectNames = 0
    /// Objects being read in order, one inside another.
    var depth = 0
    /// Whether short ASCII strings are made in place (``SmallASCIIString/isSupported``, read once).
    let makesSmallStrings: Bool
    /// The tape, once a read needed one.
    private(set) var tape: UnsafeMutablePointer<JSONTape>?

    /// How many names ``names`` holds.
    static var nameCapacity: Int { 32 }

    /// Objects nested deeper than this are read from the tape.
    static var maximumDepth: Int { 32 }

    /// The address given to empty bytes: never written, and never read (their count is 0).
    nonisolated(unsafe) private static let noBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    init(_ bytes: UnsafeRawBufferPointer, names: UnsafeMutablePointer<UInt64>) {
        self.bytes = bytes
        self.names = names
        base = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(Self.noBytes)
        count = bytes.count
        position = 0
        makesSmallStrings = SmallASCIIString.isSupported
    }

    var isReadingInOrder: Bool { tape == nil }

    /// The tape of the whole document, made the first time it is asked for.
    /// - Throws: ``JSONParseError`` when the document is not valid JSON.
    mutating func tapeForReads() throws(JSONParseError) -> UnsafePointer<JSONTape> {
        if let tape { return UnsafePointer(tape) }
        let made = try JSONTape.allocate(bytes)
        tape = made
        return UnsafePointer(made)
    }

    /// Gives the tape back, if one was made.
    func release() {
        if let tape { JSONTape.free(tape) }
    }

    @inline(__always)
    func skipWhitespace(from start: Int) -> Int {
        var position = start
        while position < count {
            switch base[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return position
            }
        }
        return position
    }

    @inline(__always)
    func byte(_ offset: Int) -> UInt8 { offset < count ? base[offset] : 0 }

    // MARK: Members in order

    /// `nextMember(_:)` (by its bytes) by the member's name.
    @inline(__always)
    mutating func nextMember(_ key: String) -> Int? {
        var key = key
        return key.withUTF8 { nextMember(UnsafeRawBufferPointer($0)) }
    }

    /// What ``nextPresent(_:)`` found.
    enum Presence {
        /// The member is `null` (read), or surely missing.
        case missing
        /// The member is next; its value starts here.
        case value(Int)
        /// Not known without the tape.
        case unknown
    }

    /// `nextMember(_:)` (by its bytes) for a member that may be missing or `null`.
    @inline(__always)
    mutating func nextPresent(_ key: String) -> Presence {
        var key = key
        return key.withUTF8 { key -> Presence in
            let key = UnsafeRawBufferPointer(key)
            guard let start = nextMember(key) else { return lacksMember(key) ? .missing : .unknown }
            guard isNull(at: start) else { return .value(start) }
            finishMember(at: start + 4)
            return .missing
        }
    }

    /// The offset of the value of the next member of the current object when its name is exactly `key` (plain
    /// ASCII bytes, no escapes, not a repeat of a name read before in the object); its name is then noted. `nil`
    /// when the next member is anything else, or there is none.
    @inline(__always)
    mutating func nextMember(_ key: UnsafeRawBufferPointer) -> Int? {
        var at = skipWhitespace(from: position)
        if members > 0 {
            guard byte(at) == UInt8(ascii: ",") else { return nil }
            at = skipWhitespace(from: at + 1)
        }
        guard byte(at) == UInt8(ascii: "\"") else { return nil }
        let start = at + 1
        let (end, isASCII) = JSONTape.firstSpecialOrNonASCII(UnsafeRawPointer(base), count: count, from: start)
        guard isASCII, byte(end) == UInt8(ascii: "\""), end - start == key.count else { return nil }
        if let wanted = key.baseAddress, !ByteSpans.equal(UnsafeRawPointer(base + start), wanted, count: key.count) {
            return nil
        }
        guard !hasRead(start, key.count), nameCount < Self.nameCapacity else { return nil }
        names[nameCount] = UInt64(start) << 32 | UInt64(key.count)
        nameCount += 1
        let colon = skipWhitespace(from: end + 1)
        guard byte(colon) == UInt8(ascii: ":") else { return nil }
        return skipWhitespace(from: colon + 1)
    }

    /// Whether the current object has a member read in order whose name is the `length` bytes at `start`.
    @inline(__always)
    func hasRead(_ start: Int, _ length: Int) -> Bool {
        hasRead(UnsafeRawBufferPointer(start: base + start, count: length))
    }

    /// Whether the current object has a member read in order named exactly `name` (its bytes).
    func hasRead(_ name: UnsafeRawBufferPointer) -> Bool {
        var index = objectNames
        while index < nameCount {
            let word = names[index]
            let length = Int(word & 0xFFFF_FFFF)
            if length == name.count,
                length == 0
                    || ByteSpans.equal(UnsafeRawPointer(base + Int(word >> 32)), name.baseAddress!, count: length)
            {
                return true
            }
            index += 1
        }
        return false
    }

    /// Whether the current object surely has no member named `key`: the members after the position are looked
    /// at (plain names and scalar values only), and those read before. `false` when unsure.
    func lacksMember(_ key: UnsafeRawBufferPointer) -> Bool {
        guard !hasRead(key) else { return false }
        var at = skipWhitespace(from: position)
        var first = members == 0
        while true {
            if byte(at) == UInt8(ascii: "}") { return true }
            if !first {
                guard byte(at) == UInt8(ascii: ",") else { return false }
                at = skipWhitespace(from: at + 1)
            }
            first = false
            guard byte(at) == UInt8(ascii: "\"") else { return false }
            let (end, isASCII) = JSONTape.firstSpecialOrNonASCII(UnsafeRawPointer(base), count: count, from: at + 1)
            guard isASCII, byte(end) == UInt8(ascii: "\"") else { return false }
            if end - at - 1 == key.count,
                key.isEmpty || ByteSpans.equal(UnsafeRawPointer(base + at + 1), key.baseAddress!, count: key.count)
            {
                return false
            }
            let colon = skipWhitespace(from: end + 1)
            guard byte(colon) == UInt8(ascii: ":"), let valueEnd = scalarEnd(at: skipWhitespace(from: colon + 1))
            else { return false }
            at = skipWhitespace(from: valueEnd)
        }
    }

    /// The end of the string, number or literal at `start` (plain ASCII strings only), or `nil`.
    private func scalarEnd(at start: Int) -> Int? {
        switch byte(start) {
        case UInt8(ascii: "\""):
            let (end, isASCII) = JSONTape.firstSpecialOrNonASCII(UnsafeRawPointer(base), count: count, from: start + 1)
            return isASCII && byte(end) == UInt8(ascii: "\"") ? end + 1 : nil
        case UInt8(ascii: "t"), UInt8(ascii: "n"): return start + 4 <= count ? start + 4 : nil
        case UInt8(ascii: "f"): return start + 5 <= count ? start + 5 : nil
        default: return try? JSONTape.number(base, count, at: start)
        }
    }

    /// Notes that the member whose value began at the position ended at `end`.
    @inline(__always)
    mutating func finishMember(at end: Int) {
        position = end
        members += 1
    }

    // MARK: Values in order (`nil`: not what was asked, or not as the fast path reads it)

    /// The string at `start` and its end.
    @inline(__always)
    func string(at start: Int) -> (String, Int)? {
        guard byte(start) == UInt8(ascii: "\"") else { return nil }
        let (end, isASCII) = JSONTape.firstSpecialOrNonASCII(UnsafeRawPointer(base), count: count, from: start + 1)
        guard byte(end) == UInt8(ascii: "\"") else {
            guard byte(end) == UInt8(ascii: "\\") else { return nil }
            // Escapes, checked and resolved as the tape's reader does.
            var parser = JSONParser(bytes: bytes)
            parser.position = start
            guard let text = try? parser.string() else { return nil }
            return (text, parser.position)
        }
        let length = end - start - 1
        if isASCII {
            if makesSmallStrings, length <= SmallASCIIString.capacity {
                return (SmallASCIIString.supportedString(base + start + 1, count: length), end + 1)
            }
            return (
                String(decoding: UnsafeBufferPointer(start: base + start + 1, count: length), as: UTF8.self), end + 1
            )
        }
        guard
            let text = String(validating: UnsafeRawBufferPointer(start: base + start + 1, count: length), as: UTF8.self)
        else { return nil }
        return (text, end + 1)
    }

    /// The integer at `start` (plain digits that surely fit) and its end.
    @inline(__always)
    func integer<I: FixedWidthInteger>(at start: Int, as type: I.Type) -> (I, Int)? {
        guard let end = try? JSONTape.number(base, count, at: start),
            let value = ByteDecoder.smallInteger(bytes, from: start, to: end), let exact = I(exactly: value)
        else { return nil }
        return (exact, end)
    }

    /// The number at `start` as a `Double` and its end.
    func double(at start: Int) -> (Double, Int)? {
        guard let end = try? JSONTape.number(base, count, at: start) else { return nil }
        var parser = JSONParser(bytes: bytes)
        parser.position = start
        switch try? parser.number() {
        case .integer(let value): return (Double(value), end)
        case .unsignedInteger(let value): return (Double(value), end)
        case .number(let value): return (value, end)
        default: return nil
        }
    }

    /// Whether the value at `start` is `null`.
    @inline(__always)
    func isNull(at start: Int) -> Bool {
        start + 4 <= count && base[start] == UInt8(ascii: "n") && base[start + 1] == UInt8(ascii: "u")
            && base[start + 2] == UInt8(ascii: "l") && base[start + 3] == UInt8(ascii: "l")
    }

    /// The boolean at `start` and its end.
    func bool(at start: Int) -> (Bool, Int)? {
        if start + 4 <= count, base[start] == UInt8(ascii: "t"), base[start + 1] == UInt8(ascii: "r"),
            base[start + 2] == UInt8(ascii: "u"), base[start + 3] == UInt8(ascii: "e")
        {
            return (true, start + 4)
        }
        if start + 5 <= count, base[start] == UInt8(ascii: "f"), base[start + 1] == UInt8(ascii: "a"),
            base[start + 2] == UInt8(ascii: "l"), base[start + 3] == UInt8(ascii: "s"),
            base[start + 4] == UInt8(ascii: "e")
        {
            return (false, start + 5)
        }
        return nil
    }

    /// The array of plain ASCII strings at `start` and its end: counted first, so that the array is made at its
    /// size.
    func strings(at start: Int) -> ([String], Int)? {
        guard byte(start) == UInt8(ascii: "[") else { return nil }
        var at = skipWhitespace(from: start + 1)
        var elements = 0
        if byte(at) != UInt8(ascii: "]") {
            while true {
                guard byte(at) == UInt8(ascii: "\"") else { return nil }
                let (end, isASCII) = JSONTape.firstSpecialOrNonASCII(UnsafeRawPointer(base), count: count, from: at + 1)
                guard isASCII, byte(end) == UInt8(ascii: "\"") else { return nil }
                elements += 1
                at = skipWhitespace(from: end + 1)
                if byte(at) == UInt8(ascii: "]") { break }
                guard byte(at) == UInt8(ascii: ",") else { return nil }
                at = skipWhitespace(from: at + 1)
            }
        }
        let end = at + 1
        var result: [String] = []
        result.reserveCapacity(elements)
        at = skipWhitespace(from: start + 1)
        for _ in 0..<elements {
            guard let (text, next) = string(at: at) else { return nil }
            result.append(text)
            at = skipWhitespace(from: skipWhitespace(from: next) + 1)
        }
        return (result, end)
    }
}
