import Foundation
import StrataCore

/// The structure of one JSON document, found in one validating pass (strict RFC 8259): every value's byte range in
/// document order, each container followed by its contents. ``FastJSONDecoder``'s containers find their members
/// and elements here instead of scanning the text again, and a string is read from its range without looking for
/// its end a second time.
///
/// An object's contents are its members' names and values, alternating; an array's, its elements. Every entry
/// knows where the entry after its own contents is (``Entry/next``), so a container's children are walked by
/// jumping over their contents. A member name that appears twice in one object is refused here, for every object
/// of the document.
///
/// The entries live in storage lent by ``read(_:_:)`` for one decode (no array, no reference counting on the way):
/// a tape, like the bytes it reads, must not be used after `read` returns.
struct JSONTape {
    /// One value (or member name).
    struct Entry {
        /// The offset of its first byte (`{`, `[`, `"`, a digit, ...).
        var start: Int
        /// The offset just past its last byte.
        var end: Int
        /// The index of the entry after this one's contents.
        var next: Int
        /// For an object, the name entry where the next member lookup starts: just past the member found last, so
        /// that members read in the order they were written are each found at the first try.
        var cursor: Int
        /// For a string, whether it has escapes (its bytes between the quotes are then not its text).
        var isEscaped: Bool
    }

    let bytes: UnsafeRawBufferPointer
    /// The entries, `count` of them, in storage of `capacity`.
    private(set) var entries: UnsafeMutablePointer<Entry>
    private(set) var count = 0
    private var capacity: Int
    /// The name entries of the objects being read, innermost last: one buffer for the whole document.
    private var names: UnsafeMutablePointer<Int>
    private var nameCount = 0
    private var nameCapacity: Int

    /// Reads the document's structure and lends it to `body`; the value must fill `bytes` but for white space
    /// around it.
    static func read<T>(_ bytes: UnsafeRawBufferPointer, _ body: (JSONTape) throws -> T) throws -> T {
        var tape = JSONTape(bytes: bytes)
        defer { tape.deallocate() }
        try tape.parse()
        return try body(tape)
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        // About one entry per 8 bytes of a typical record; the buffers grow when a document needs more.
        capacity = max(16, bytes.count / 6)
        entries = .allocate(capacity: capacity)
        nameCapacity = 16
        names = .allocate(capacity: nameCapacity)
    }

    private func deallocate() {
        entries.deallocate()
        names.deallocate()
    }

    private mutating func parse() throws(JSONParseError) {
        let end = try value(at: skipWhitespace(from: 0), depth: 0)
        guard skipWhitespace(from: end) == bytes.count else {
            throw JSONParseError(message: "unexpected text after the JSON value", offset: end)
        }
    }

    private mutating func append(_ entry: Entry) {
        Self.append(entry, to: &entries, count: &count, capacity: &capacity)
    }

    private mutating func appendName(_ index: Int) {
        Self.append(index, to: &names, count: &nameCount, capacity: &nameCapacity)
    }

    /// Appends to a buffer of `count` elements in storage of `capacity`, doubling the storage when it is full.
    private static func append<Element>(
        _ element: Element, to buffer: inout UnsafeMutablePointer<Element>, count: inout Int, capacity: inout Int
    ) {
        if count == capacity {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: buffer, count: count)
            buffer.deallocate()
            buffer = larger
            capacity *= 2
        }
        (buffer + count).initialize(to: element)
        count += 1
    }

    subscript(index: Int) -> Entry { entries[index] }

    func skipWhitespace(from start: Int) -> Int {
        var position = start
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return position
            }
        }
        return position
    }

    /// Adds the value starting at `start` (which must not be white space) and its contents; returns its end.
    private mutating func value(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        guard depth < JSONParser.maximumDepth else { throw JSONParseError(message: "nesting too deep", offset: start) }
        guard start < bytes.count else { throw JSONParseError(message: "unexpected end of input", offset: start) }
        let index = count
        append(Entry(start: start, end: start, next: index + 1, cursor: index + 1, isEscaped: false))
        let end: Int
        switch bytes[start] {
        case UInt8(ascii: "{"): end = try object(at: start, depth: depth)
        case UInt8(ascii: "["): end = try array(at: start, depth: depth)
        case UInt8(ascii: "\""):
            let (stringEnd, escaped) = try string(at: start)
            entries[index].isEscaped = escaped
            end = stringEnd
        case UInt8(ascii: "t"): end = try literal("true", at: start)
        case UInt8(ascii: "f"): end = try literal("false", at: start)
        case UInt8(ascii: "n"): end = try literal("null", at: start)
        default: end = try number(at: start)
        }
        entries[index].end = end
        entries[index].next = count
        return end
    }

    private mutating func object(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        var position = skipWhitespace(from: start + 1)
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { return position + 1 }
        let firstName = nameCount
        defer { nameCount = firstName }
        while true {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw JSONParseError(message: "expected a member name", offset: position)
            }
            appendName(count)
            position = skipWhitespace(from: try value(at: position, depth: depth + 1))
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw JSONParseError(message: "expected ':'", offset: position)
            }
            position = skipWhitespace(from: try value(at: skipWhitespace(from: position + 1), depth: depth + 1))
            guard position < bytes.count else {
                throw JSONParseError(message: "unterminated object", offset: position)
            }
            if bytes[position] == UInt8(ascii: "}") {
                if nameCount - firstName > 1 {
                    try refuseRepeatedNames(UnsafeBufferPointer(start: names + firstName, count: nameCount - firstName))
                }
                return position + 1
            }
            guard bytes[position] == UInt8(ascii: ",") else {
                throw JSONParseError(message: "expected ',' or '}'", offset: position)
            }
            position = skipWhitespace(from: position + 1)
        }
    }

    private mutating func array(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        var position = skipWhitespace(from: start + 1)
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { return position + 1 }
        while true {
            position = skipWhitespace(from: try value(at: position, depth: depth + 1))
            guard position < bytes.count else {
                throw JSONParseError(message: "unterminated array", offset: position)
            }
            if bytes[position] == UInt8(ascii: "]") { return position + 1 }
            guard bytes[position] == UInt8(ascii: ",") else {
                throw JSONParseError(message: "expected ',' or ']'", offset: position)
            }
            position = skipWhitespace(from: position + 1)
        }
    }

    private func literal(_ word: StaticString, at start: Int) throws(JSONParseError) -> Int {
        let count = word.utf8CodeUnitCount
        guard start + count <= bytes.count else {
            throw JSONParseError(message: "unexpected end of input", offset: start)
        }
        for index in 0..<count where bytes[start + index] != word.utf8Start[index] {
            throw JSONParseError(message: "invalid literal", offset: start)
        }
        return start + count
    }

    /// Checks RFC 8259 number grammar without converting anything.
    private func number(at start: Int) throws(JSONParseError) -> Int {
        var position = start
        func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 48 && bytes[at] <= 57 }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard digit(position) else { throw JSONParseError(message: "invalid value", offset: start) }
        if bytes[position] == 48 {
            position += 1
        } else {
            while digit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digit(position) else { throw JSONParseError(message: "invalid number", offset: start) }
            while digit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digit(position) else { throw JSONParseError(message: "invalid number", offset: start) }
            while digit(position) { position += 1 }
        }
        return position
    }

    /// The offset past the closing quote of the string at `start`, and whether it has escapes (each checked).
    private func string(at start: Int) throws(JSONParseError) -> (end: Int, escaped: Bool) {
        // Past plain text eight bytes at a time; the byte loop below decides about the word that stopped it.
        var position = Self.skipPlainWords(bytes, from: start + 1)
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { return (position + 1, false) }
            if byte == UInt8(ascii: "\\") {
                var parser = JSONParser(bytes: bytes)
                parser.position = start
                _ = try parser.string()  // Validates every escape; rare in stored records.
                return (parser.position, true)
            }
            if byte < 0x20 { throw JSONParseError(message: "a control character in a string", offset: position) }
            position += 1
        }
        throw JSONParseError(message: "unterminated string", offset: start)
    }

    /// The offset of the first 8-byte word from `start` on that holds a quote, a backslash or a control character
    /// (or of the last bytes, fewer than eight): every byte before it is plain string text.
    @inline(__always)
    static func skipPlainWords(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var position = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        while position + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if special & 0x8080_8080_8080_8080 != 0 { return position }
            position += 8
        }
        return position
    }

    // MARK: Reading

    /// The text of the string entry `index` (its UTF-8 checked), escapes resolved.
    func text(_ index: Int) throws(JSONParseError) -> String {
        let entry = entries[index]
        guard !entry.isEscaped else {
            var parser = JSONParser(bytes: bytes)
            parser.position = entry.start
            return try parser.string()
        }
        let quoted = UnsafeRawBufferPointer(rebasing: bytes[(entry.start + 1)..<(entry.end - 1)])
        // ASCII, nearly every stored string, is valid UTF-8 as it stands: no validating decoder to run.
        if Self.isASCII(quoted) { return String(decoding: quoted.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        guard let text = String(validating: quoted, as: UTF8.self) else {
            throw JSONParseError(message: "invalid UTF-8 in a string", offset: entry.start)
        }
        return text
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= bytes.count {
            if base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset += 8
        }
        while offset < bytes.count {
            if base.load(fromByteOffset: offset, as: UInt8.self) >= 0x80 { return false }
            offset += 1
        }
        return true
    }

    /// Starts the next member lookup in object entry `object` at name entry `name`.
    func setCursor(of object: Int, to name: Int) { entries[object].cursor = name }

    /// The bytes between the quotes of the string entry `index`.
    func quoted(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[(entries[index].start + 1)..<(entries[index].end - 1)])
    }

    /// The name of member entry `index` as its exact scalars (escapes resolved; invalid UTF-8 repaired).
    func name(_ index: Int) -> String {
        if entries[index].isEscaped { return (try? text(index)) ?? "" }
        return String(decoding: quoted(index), as: UTF8.self)
    }

    /// Whether a few names, none escaped, have a repeat, compared pair by pair by their bytes (lengths first),
    /// without making a closure or a string: the check every object of every record read goes through. `true`
    /// also when a name is escaped, for the full check to decide.
    private func hasRepeatedPlainName(_ names: UnsafeBufferPointer<Int>) -> Bool {
        for index in names.indices {
            let entry = entries[names[index]]
            if entry.isEscaped { return true }
            let length = entry.end - entry.start
            for earlier in names.startIndex..<index {
                let other = entries[names[earlier]]
                if other.end - other.start == length,
                    memcmp(bytes.baseAddress! + entry.start, bytes.baseAddress! + other.start, length) == 0
                {
                    return true
                }
            }
        }
        return false
    }

    /// A name given twice (the same scalars) is refused: SQLite's JSON functions read the first member and a
    /// last-wins decoder the other, so the record would match queries on a value it does not read back with.
    private func refuseRepeatedNames(_ names: UnsafeBufferPointer<Int>) throws(JSONParseError) {
        if names.count <= DuplicateMemberNames.pairwiseLimit, !hasRepeatedPlainName(names) { return }
        let base = names.startIndex
        // Escaped names (rare) are compared after resolving their escapes; others as they stand in the text.
        let anyEscaped = names.contains { entries[$0].isEscaped }
        let escapedNames = anyEscaped ? names.map { entries[$0].isEscaped ? Array(name($0).utf8) : nil } : []
        func exact(_ member: Int) -> ExactString {
            if anyEscaped, let decoded = escapedNames[member] {
                return ExactString(String(decoding: decoded, as: UTF8.self))
            }
            return ExactString(name(names[base + member]))
        }
        let repeated = DuplicateMemberNames.firstRepeat(
            count: names.count,
            length: { (anyEscaped ? escapedNames[$0]?.count : nil) ?? quoted(names[base + $0]).count },
            equal: { first, second in
                if anyEscaped, escapedNames[first] != nil || escapedNames[second] != nil {
                    return exact(first) == exact(second)
                }
                let one = quoted(names[base + first])
                return memcmp(one.baseAddress!, quoted(names[base + second]).baseAddress!, one.count) == 0
            },
            name: exact)
        if let repeated {
            throw JSONParseError(
                message: "the member name '\(name(names[base + repeated]))' appears twice in one object",
                offset: entries[names[base + repeated]].start)
        }
    }
}
