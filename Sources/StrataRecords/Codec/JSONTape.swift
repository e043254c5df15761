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
    /// One value (or member name). Offsets and indexes are 32-bit, so that an entry takes 20 bytes
    /// (``read(_:_:)`` refuses documents of 2 GiB or more).
    struct Entry {
        /// The offset of its first byte (`{`, `[`, `"`, a digit, ...).
        var start32: Int32
        /// The offset just past its last byte.
        var end32: Int32
        /// The index of the entry after this one's contents.
        var next32: Int32
        /// For an object, the name entry where the next member lookup starts: just past the member found last, so
        /// that members read in the order they were written are each found at the first try.
        var cursor32: Int32
        /// For a string, whether it has escapes (its bytes between the quotes are then not its text).
        var isEscaped: Bool
        /// For a string without escapes, whether every byte between its quotes is ASCII (then valid UTF-8 as it
        /// stands), noted while its end was looked for.
        var isASCII: Bool

        init(start: Int, end: Int, next: Int, isEscaped: Bool = false, isASCII: Bool = false) {
            start32 = Int32(truncatingIfNeeded: start)
            end32 = Int32(truncatingIfNeeded: end)
            next32 = Int32(truncatingIfNeeded: next)
            cursor32 = next32
            self.isEscaped = isEscaped
            self.isASCII = isASCII
        }

        var start: Int { Int(start32) }
        var end: Int { Int(end32) }
        var next: Int { Int(next32) }
        var cursor: Int { Int(cursor32) }
    }

    let bytes: UnsafeRawBufferPointer
    /// The address of `bytes` (not empty) and their count, for the parse: reading through them checks no
    /// optional address.
    private let pointer: UnsafePointer<UInt8>
    private let length: Int
    /// The entries, `count` of them, in storage of `capacity`.
    private(set) var entries: UnsafeMutablePointer<Entry>
    private(set) var count = 0
    private var capacity: Int
    /// The name entries of the objects being read, innermost last: one buffer for the whole document. Each is the
    /// entry's index in the low 32 bits and a hash of the name's bytes in the high 32 (``signature(at:length:)``),
    /// so that the repeated-name check compares two names with one instruction.
    private var names: UnsafeMutablePointer<UInt64>
    private var nameCount = 0
    private var nameCapacity: Int
    /// The first storage (``TapeBlock``), holding both buffers until they outgrow it.
    private let block: UnsafeMutableRawPointer
    /// Whether short ASCII strings are made in place (``SmallASCIIString/isSupported``, read once per tape rather
    /// than once per string).
    private let makesSmallStrings: Bool
    /// Whether `entries` and `names` moved to storage of their own (after outgrowing the block).
    private var entriesMoved = false
    private var namesMoved = false

    /// Reads the document's structure and lends it to `body`; the value must fill `bytes` but for white space
    /// around it.
    static func read<T>(_ bytes: UnsafeRawBufferPointer, _ body: (JSONTape) throws -> T) throws -> T {
        var tape = try unparsed(bytes)
        defer { tape.deallocate() }
        try tape.parse()
        return try body(tape)
    }

    /// The structure of `bytes` in storage of its own, for a reader that needs it for longer than a closure:
    /// ``free(_:)`` gives it back.
    static func allocate(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> UnsafeMutablePointer<JSONTape> {
        var tape = try unparsed(bytes)
        do {
            try tape.parse()
        } catch {
            tape.deallocate()
            throw error
        }
        let stored = UnsafeMutablePointer<JSONTape>.allocate(capacity: 1)
        stored.initialize(to: tape)
        return stored
    }

    /// Gives back a tape from ``allocate(_:)`` and its storage.
    static func free(_ tape: UnsafeMutablePointer<JSONTape>) {
        tape.pointee.deallocate()
        tape.deinitialize(count: 1)
        tape.deallocate()
    }

    /// A tape of `bytes` before its parse, or the error for bytes no tape can hold.
    private static func unparsed(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONTape {
        guard bytes.count < Int(Int32.max) else {
            throw JSONParseError(message: "a JSON document of 2 GiB or more", offset: 0)
        }
        guard let pointer = bytes.baseAddress, !bytes.isEmpty else {
            throw JSONParseError(message: "unexpected end of input", offset: 0)
        }
        return JSONTape(bytes: bytes, pointer: pointer.assumingMemoryBound(to: UInt8.self))
    }

    /// The index of the entry whose value starts at byte `offset` (one must).
    func entry(startingAt offset: Int) -> Int {
        var low = 0
        var high = count - 1
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].start < offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private init(bytes: UnsafeRawBufferPointer, pointer: UnsafePointer<UInt8>) {
        self.bytes = bytes
        self.pointer = pointer
        length = bytes.count
        block = TapeBlock.take()
        entries = block.bindMemory(to: Entry.self, capacity: TapeBlock.entries)
        capacity = TapeBlock.entries
        names = (block + TapeBlock.entries * MemoryLayout<Entry>.stride).bindMemory(
            to: UInt64.self, capacity: TapeBlock.names)
        nameCapacity = TapeBlock.names
        makesSmallStrings = SmallASCIIString.isSupported
    }

    private func deallocate() {
        if entriesMoved { entries.deallocate() }
        if namesMoved { names.deallocate() }
        TapeBlock.give(block)
    }

    private mutating func parse() throws(JSONParseError) {
        let end = try value(at: skipWhitespace(from: 0), depth: 0)
        guard skipWhitespace(from: end) == length else {
            throw JSONParseError(message: "unexpected text after the JSON value", offset: end)
        }
    }

    @inline(__always)
    private mutating func append(_ entry: Entry) {
        if count == capacity { Self.grow(&entries, capacity: &capacity, count: count, moved: &entriesMoved) }
        (entries + count).initialize(to: entry)
        count += 1
    }

    @inline(__always)
    private mutating func appendName(_ index: Int, signature: UInt64) {
        if nameCount == nameCapacity {
            Self.grow(&names, capacity: &nameCapacity, count: nameCount, moved: &namesMoved)
        }
        names[nameCount] = signature << 32 | UInt64(UInt32(truncatingIfNeeded: index))
        nameCount += 1
    }

    /// A 32-bit hash of the `byteCount` bytes at `start`: equal bytes, equal hashes (the converse is checked byte by
    /// byte). Made of the first and last words of the bytes, read with one or two loads when the buffer has eight
    /// bytes from `start` on.
    @inline(__always)
    private func signature(at start: Int, byteCount: Int) -> UInt64 {
        let base = UnsafeRawPointer(pointer)
        var word: UInt64
        if byteCount >= 8 {
            word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            let last = UInt64(
                littleEndian: base.loadUnaligned(fromByteOffset: start + byteCount - 8, as: UInt64.self))
            word ^= last << 29 | last >> 35
        } else if start + 8 <= length {
            // The word reaches past the name (into the rest of the document): only the name's bytes are kept.
            word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            word &= (1 << (8 * UInt64(byteCount))) &- 1
        } else {
            word = ByteSpans.partialWord(base + start, count: byteCount)
        }
        return ((word &+ UInt64(byteCount)) &* 0x9E37_79B9_7F4A_7C15) >> 32
    }

    /// Moves a full buffer of `count` elements to storage of its own twice as large (freeing the old one if it
    /// had already `moved` out of the block).
    private static func grow<Element>(
        _ buffer: inout UnsafeMutablePointer<Element>, capacity: inout Int, count: Int, moved: inout Bool
    ) {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: buffer, count: count)
        if moved { buffer.deallocate() }
        buffer = larger
        capacity *= 2
        moved = true
    }

    subscript(index: Int) -> Entry { entries[index] }

    @inline(__always)
    func skipWhitespace(from start: Int) -> Int {
        var position = start
        while position < length {
            switch pointer[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return position
            }
        }
        return position
    }

    /// Adds the value starting at `start` (which must not be white space) and its contents; returns its end.
    private mutating func value(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        guard depth < JSONParser.maximumDepth else { throw JSONParseError(message: "nesting too deep", offset: start) }
        guard start < length else { throw JSONParseError(message: "unexpected end of input", offset: start) }
        let index = count
        let end: Int
        switch pointer[start] {
        case UInt8(ascii: "\""): return try appendString(at: start)
        case UInt8(ascii: "{"):
            append(Entry(start: start, end: start, next: index + 1))
            end = try object(at: start, depth: depth)
        case UInt8(ascii: "["):
            append(Entry(start: start, end: start, next: index + 1))
            end = try array(at: start, depth: depth)
        case UInt8(ascii: "t"): end = try literal("true", at: start)
        case UInt8(ascii: "f"): end = try literal("false", at: start)
        case UInt8(ascii: "n"): end = try literal("null", at: start)
        default: end = try number(at: start)
        }
        if index == count {
            append(Entry(start: start, end: end, next: index + 1))
        } else {
            entries[index].end32 = Int32(truncatingIfNeeded: end)
            entries[index].next32 = Int32(truncatingIfNeeded: count)
        }
        return end
    }

    /// Adds the string starting at `start` (its opening quote); returns its end. A string has no contents: its entry
    /// is complete at once.
    @inline(__always)
    private mutating func appendString(at start: Int) throws(JSONParseError) -> Int {
        let index = count
        let (end, escaped, isASCII) = try string(at: start)
        append(Entry(start: start, end: end, next: index + 1, isEscaped: escaped, isASCII: isASCII))
        return end
    }

    /// Adds a member's value or an element starting at `start`, at `depth`: a string or a number (most of them)
    /// straight away, anything else through ``value(at:depth:)``.
    @inline(__always)
    private mutating func child(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        if depth < JSONParser.maximumDepth, start < length {
            let byte = pointer[start]
            if byte == UInt8(ascii: "\"") { return try appendString(at: start) }
            if byte &- 48 < 10 || byte == UInt8(ascii: "-") {
                let index = count
                let end = try Self.number(pointer, length, at: start)
                append(Entry(start: start, end: end, next: index + 1))
                return end
            }
        }
        return try value(at: start, depth: depth)
    }

    private mutating func object(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        var position = skipWhitespace(from: start + 1)
        if position < length, pointer[position] == UInt8(ascii: "}") { return position + 1 }
        let firstName = nameCount
        defer { nameCount = firstName }
        var anyEscaped = false
        while true {
            guard position < length, pointer[position] == UInt8(ascii: "\"") else {
                throw JSONParseError(message: "expected a member name", offset: position)
            }
            // The name's entry, made here rather than by `value(at:depth:)`: it is always a string.
            let name = count
            let nameEnd = try appendString(at: position)
            appendName(name, signature: signature(at: position + 1, byteCount: nameEnd - position - 2))
            anyEscaped = anyEscaped || entries[name].isEscaped
            position = skipWhitespace(from: nameEnd)
            guard position < length, pointer[position] == UInt8(ascii: ":") else {
                throw JSONParseError(message: "expected ':'", offset: position)
            }
            position = skipWhitespace(from: try child(at: skipWhitespace(from: position + 1), depth: depth + 1))
            guard position < length else {
                throw JSONParseError(message: "unterminated object", offset: position)
            }
            if pointer[position] == UInt8(ascii: "}") {
                if nameCount - firstName > 1 {
                    try refuseRepeatedNames(
                        UnsafeBufferPointer(start: names + firstName, count: nameCount - firstName),
                        anyEscaped: anyEscaped)
                }
                return position + 1
            }
            guard pointer[position] == UInt8(ascii: ",") else {
                throw JSONParseError(message: "expected ',' or '}'", offset: position)
            }
            position = skipWhitespace(from: position + 1)
        }
    }

    private mutating func array(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        var position = skipWhitespace(from: start + 1)
        if position < length, pointer[position] == UInt8(ascii: "]") { return position + 1 }
        while true {
            position = skipWhitespace(from: try child(at: position, depth: depth + 1))
            guard position < length else {
                throw JSONParseError(message: "unterminated array", offset: position)
            }
            if pointer[position] == UInt8(ascii: "]") { return position + 1 }
            guard pointer[position] == UInt8(ascii: ",") else {
                throw JSONParseError(message: "expected ',' or ']'", offset: position)
            }
            position = skipWhitespace(from: position + 1)
        }
    }

    private func literal(_ word: StaticString, at start: Int) throws(JSONParseError) -> Int {
        let count = word.utf8CodeUnitCount
        guard start + count <= length else {
            throw JSONParseError(message: "unexpected end of input", offset: start)
        }
        for index in 0..<count where pointer[start + index] != word.utf8Start[index] {
            throw JSONParseError(message: "invalid literal", offset: start)
        }
        return start + count
    }

    /// Checks RFC 8259 number grammar without converting anything.
    private func number(at start: Int) throws(JSONParseError) -> Int {
        try Self.number(pointer, length, at: start)
    }

    /// ``number(at:)`` on the `length` bytes at `pointer`: static, so that a caller in the middle of the parse
    /// does not copy the tape to call it (and a reader without a tape can check a number as the tape would).
    static func number(_ pointer: UnsafePointer<UInt8>, _ length: Int, at start: Int) throws(JSONParseError)
        -> Int
    {
        var position = start
        func digit(_ at: Int) -> Bool { at < length && pointer[at] >= 48 && pointer[at] <= 57 }
        if position < length, pointer[position] == UInt8(ascii: "-") { position += 1 }
        guard digit(position) else { throw JSONParseError(message: "invalid value", offset: start) }
        if pointer[position] == 48 {
            position += 1
        } else {
            while digit(position) { position += 1 }
        }
        if position < length, pointer[position] == UInt8(ascii: ".") {
            position += 1
            guard digit(position) else { throw JSONParseError(message: "invalid number", offset: start) }
            while digit(position) { position += 1 }
        }
        if position < length, pointer[position] == UInt8(ascii: "e") || pointer[position] == UInt8(ascii: "E") {
            position += 1
            if position < length, pointer[position] == UInt8(ascii: "+") || pointer[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digit(position) else { throw JSONParseError(message: "invalid number", offset: start) }
            while digit(position) { position += 1 }
        }
        return position
    }

    /// The offset past the closing quote of the string at `start`, whether it has escapes (each checked), and
    /// whether it is all ASCII (when it has none).
    @inline(__always)
    private func string(at start: Int) throws(JSONParseError) -> (end: Int, escaped: Bool, isASCII: Bool) {
        let (position, isASCII) = Self.firstSpecialOrNonASCII(UnsafeRawPointer(pointer), count: length, from: start + 1)
        guard position < length else { throw JSONParseError(message: "unterminated string", offset: start) }
        let byte = pointer[position]
        if byte == UInt8(ascii: "\"") { return (position + 1, false, isASCII) }
        guard byte == UInt8(ascii: "\\") else {
            throw JSONParseError(message: "a control character in a string", offset: position)
        }
        var parser = JSONParser(bytes: bytes)
        parser.position = start
        _ = try parser.string()  // Validates every escape; rare in stored records.
        return (parser.position, true, false)
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
        // ASCII, nearly every stored string, is valid UTF-8 as it stands: no validating decoder to run (and
        // `String(validating:)` is generic, several times slower than `String(decoding:)`'s ASCII path). The tape
        // noted it while finding the string's end. A short one is made in place.
        if entry.isASCII {
            guard let base = quoted.baseAddress else { return "" }
            if makesSmallStrings, quoted.count <= SmallASCIIString.capacity {
                return SmallASCIIString.supportedString(base, count: quoted.count)
            }
            return String(decoding: quoted.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }
        guard let text = String(validating: quoted, as: UTF8.self) else {
            throw JSONParseError(message: "invalid UTF-8 in a string", offset: entry.start)
        }
        return text
    }

    /// The coding path of value entry `target`: the member names (as ``AnyCodingKey``s) and element indexes (as
    /// ``IndexKey``s) from the document's value down to it, found by walking down the containers that hold it.
    /// Only errors and callers of `codingPath` ask, so the decoders carry no path of their own.
    func codingPath(to target: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var container = 0
        while container < target {
            let end = entries[container].next
            let isObject = bytes[entries[container].start] == UInt8(ascii: "{")
            // An object's children are name and value pairs; an array's, its elements.
            var child = isObject ? container + 2 : container + 1
            var index = 0
            while child < end, entries[child].next <= target {
                child = isObject ? entries[child].next + 1 : entries[child].next
                index += 1
            }
            guard child < end else { break }
            path.append(isObject ? AnyCodingKey(name(child - 1)) : IndexKey(index))
            container = child
        }
        return path
    }

    /// The bytes between the quotes of the string entry `index`.
    func quoted(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[(entries[index].start + 1)..<(entries[index].end - 1)])
    }

    /// The name of member entry `index` as its exact scalars (escapes resolved; invalid UTF-8 repaired).
    func name(_ index: Int) -> String {
        if entries[index].isEscaped { return (try? text(index)) ?? "" }
        return String(decoding: quoted(index), as: UTF8.self)
    }

    /// Whether a few names, none escaped, have a repeat: compared by their signatures, and by their bytes when
    /// those are equal.
    @inline(__always)
    private func hasRepeatedPlainName(_ names: UnsafeBufferPointer<UInt64>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var index = 1
        while index < names.count {
            let signature = names[index] >> 32
            var earlier = 0
            while earlier < index {
                if names[earlier] >> 32 == signature {
                    let one = entries[Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: names[index]))]
                    let other = entries[Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: names[earlier]))]
                    if one.end - one.start == other.end - other.start,
                        ByteSpans.equal(base + one.start, base + other.start, count: one.end - one.start)
                    {
                        return true
                    }
                }
                earlier += 1
            }
            index += 1
        }
        return false
    }

    /// A name given twice (the same scalars) is refused: SQLite's JSON functions read the first member and a
    /// last-wins decoder the other, so the record would match queries on a value it does not read back with.
    /// `slots` are the object's entries of the names buffer; `anyEscaped`, whether one of the names has escapes.
    private func refuseRepeatedNames(_ slots: UnsafeBufferPointer<UInt64>, anyEscaped: Bool) throws(JSONParseError) {
        if slots.count <= DuplicateMemberNames.pairwiseLimit, !anyEscaped, !hasRepeatedPlainName(slots) { return }
        let names = slots.map { Int32(truncatingIfNeeded: $0) }
        let base = names.startIndex
        // Escaped names (rare) are compared after resolving their escapes; others as they stand in the text.
        let escapedNames = anyEscaped ? names.map { entries[Int($0)].isEscaped ? Array(name(Int($0)).utf8) : nil } : []
        func exact(_ member: Int) -> ExactString {
            if anyEscaped, let decoded = escapedNames[member] {
                return ExactString(String(decoding: decoded, as: UTF8.self))
            }
            return ExactString(name(Int(names[base + member])))
        }
        let repeated = DuplicateMemberNames.firstRepeat(
            count: names.count,
            length: { (anyEscaped ? escapedNames[$0]?.count : nil) ?? quoted(Int(names[base + $0])).count },
            equal: { first, second in
                if anyEscaped, escapedNames[first] != nil || escapedNames[second] != nil {
                    return exact(first) == exact(second)
                }
                let one = quoted(Int(names[base + first]))
                return memcmp(one.baseAddress!, quoted(Int(names[base + second])).baseAddress!, one.count) == 0
            },
            name: exact)
        if let repeated {
            throw JSONParseError(
                message: "the member name '\(name(Int(names[base + repeated])))' appears twice in one object",
                offset: entries[Int(names[base + repeated])].start)
        }
    }
}
