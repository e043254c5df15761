import Foundation

/// The fields of one stored JSON object, lent to ``RecordDecodable/init(record:)``: each read finds its member in
/// the bytes and parses its value there, with no container, box or coding path made on the way.
///
/// A reader lives for the call it is lent to: it is not copyable and must not be kept. Reads mirror
/// `KeyedDecodingContainer`'s: `decode(_:forKey:)` throws for a missing or `null` member,
/// `decodeIfPresent(_:forKey:)` gives `nil` for either. A type the reader has no overload for is
/// decoded from the member with its `Decodable` conformance.
public struct RecordReader: ~Copyable {
    /// The read this object is part of.
    private let state: UnsafeMutablePointer<RecordReadState>
    /// The offset of the object's `{`, and its entry on the tape when it was made from one (else -1).
    private let object: Int
    private let knownEntry: Int

    private init(state: UnsafeMutablePointer<RecordReadState>, object: Int, entry: Int) {
        self.state = state
        self.object = object
        knownEntry = entry
    }

    /// Reads one stored record: lends `construct` the reader of its top object — read in order in one pass when
    /// it can, else from the bytes' tape (see ``RecordReadState``) — and turns what is thrown into the store's
    /// errors, naming `recordType`. Returns only after `construct` ran. Not generic, so that a caller specialized
    /// for its record type pays no run-time type lookups on the way.
    @usableFromInline
    static func read(
        from bytes: UnsafeRawBufferPointer, as recordType: Any.Type, collection: String, id: String?,
        _ construct: (borrowing RecordReader) throws -> Void
    ) throws {
        try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: RecordReadState.nameCapacity) { names in
            var state = RecordReadState(bytes, names: names.baseAddress!)
            defer { state.release() }
            try withUnsafeMutablePointer(to: &state) { state in
                do {
                    try readDocument(state, construct)
                } catch let error as JSONParseError {
                    throw RecordCoder.corrupt(error, collection: collection, id: id)
                } catch let error as DecodingError {
                    throw RecordCoder.typeMismatch(error, type: recordType, collection: collection, id: id)
                }
            }
        }
    }

    /// Reads the document's top object with `construct`.
    private static func readDocument(
        _ state: UnsafeMutablePointer<RecordReadState>, _ construct: (borrowing RecordReader) throws -> Void
    ) throws {
        do {
            let start = state.pointee.skipWhitespace(from: 0)
            guard state.pointee.count < Int(Int32.max), state.pointee.byte(start) == UInt8(ascii: "{") else {
                let tape = try state.pointee.tapeForReads()
                return try read(at: ByteDecoder(tape: tape, entry: 0), state, construct)
            }
            try readObject(at: start, state, construct)
            if state.pointee.isReadingInOrder,
                state.pointee.skipWhitespace(from: state.pointee.position) != state.pointee.count
            {
                _ = try state.pointee.tapeForReads()  // Throws: no document has text after its value.
            }
        } catch let error where state.pointee.isReadingInOrder {
            // Thrown by the type itself before the whole document was checked: a document that is not JSON is
            // reported as such first, as the tape-based read does.
            _ = try state.pointee.tapeForReads()
            throw error
        }
    }

    /// Lends `construct` the reader of the object at `decoder`'s entry on the tape: a type mismatch when it is not
    /// an object, as the `Codable` path says it when a keyed container is asked of something else.
    private static func read(
        at decoder: ByteDecoder, _ state: UnsafeMutablePointer<RecordReadState>,
        _ construct: (borrowing RecordReader) throws -> Void
    ) throws {
        guard decoder.first == UInt8(ascii: "{") else { throw decoder.mismatch([String: String].self) }
        try construct(RecordReader(state: state, object: decoder.offset, entry: decoder.entry))
    }

    /// Lends `construct` the reader of the object whose `{` is at `start`, read in order, then checks that the
    /// object ends where the reads left off (else the tape takes over, and checks the whole document).
    private static func readObject(
        at start: Int, _ state: UnsafeMutablePointer<RecordReadState>,
        _ construct: (borrowing RecordReader) throws -> Void
    ) throws {
        guard state.pointee.depth < RecordReadState.maximumDepth else {
            let tape = try state.pointee.tapeForReads()
            return try read(at: ByteDecoder(tape: tape, entry: tape.pointee.entry(startingAt: start)), state, construct)
        }
        let outer = (state.pointee.object, state.pointee.members, state.pointee.objectNames)
        state.pointee.object = start
        state.pointee.members = 0
        state.pointee.objectNames = state.pointee.nameCount
        state.pointee.position = start + 1
        state.pointee.depth += 1
        try construct(RecordReader(state: state, object: start, entry: -1))
        if state.pointee.isReadingInOrder {
            let end = state.pointee.skipWhitespace(from: state.pointee.position)
            if state.pointee.byte(end) == UInt8(ascii: "}") {
                state.pointee.position = end + 1
            } else {
                _ = try state.pointee.tapeForReads()  // Members left unread, or not JSON.
            }
        }
        state.pointee.depth -= 1
        state.pointee.nameCount = state.pointee.objectNames
        (state.pointee.object, state.pointee.members, state.pointee.objectNames) = outer
    }

    /// A nested object read by `T` from the tape.
    private static func read<T: RecordDecodable>(
        _ type: T.Type, at decoder: ByteDecoder, _ state: UnsafeMutablePointer<RecordReadState>
    ) throws -> T {
        var value: T?
        try read(at: decoder, state) { value = try T(record: $0) }
        return value!
    }

    /// A nested object read by `T` in order.
    private static func readObject<T: RecordDecodable>(
        _ type: T.Type, at start: Int, _ state: UnsafeMutablePointer<RecordReadState>
    ) throws -> T {
        var value: T?
        try readObject(at: start, state) { value = try T(record: $0) }
        return value!
    }

    // MARK: Reading in order

    /// Whether this object is the one being read in order.
    @inline(__always)
    private var readsInOrder: Bool { state.pointee.isReadingInOrder && state.pointee.object == object }

    /// The offset of the value of the member named `key` when it is the next one read in order.
    @inline(__always)
    private func next(_ key: String) -> Int? { readsInOrder ? state.pointee.nextMember(key) : nil }

    /// ``next(_:)`` for a member that may be missing or `null`.
    @inline(__always)
    private func nextPresent(_ key: String) -> RecordReadState.Presence {
        readsInOrder ? state.pointee.nextPresent(key) : .unknown
    }

    /// Notes that the member's value read in order ended at `end`, and returns `value`.
    @inline(__always)
    private func finish<T>(_ value: T, at end: Int) -> T {
        state.pointee.finishMember(at: end)
        return value
    }

    /// What ``inOrderObject(_:ifPresent:)`` found.
    private enum Found<Value> {
        case value(Value?)
        case onTape
    }

    /// The offset of the object that is the value of the member named `key`, when it is next (the member is
    /// then read, its object by the caller); `nil` when the member is `null` or surely missing (and `ifPresent`).
    @inline(__always)
    private func inOrderObject(_ key: String, ifPresent: Bool) -> Found<Int> {
        let start: Int
        if ifPresent {
            switch nextPresent(key) {
            case .missing: return .value(nil)
            case .value(let value): start = value
            case .unknown: return .onTape
            }
        } else {
            guard let value = next(key) else { return .onTape }
            start = value
        }
        return state.pointee.byte(start) == UInt8(ascii: "{") ? .value(start) : .onTape
    }

    /// Reads the object at `start` as `T` for the member found by ``inOrderObject(_:ifPresent:)``.
    private func objectInOrder<T: RecordDecodable>(_ type: T.Type, at start: Int) throws -> T {
        let value = try Self.readObject(type, at: start, state)
        if readsInOrder { state.pointee.finishMember(at: state.pointee.position) }
        return value
    }

    // MARK: Reading from the tape

    /// The tape (made if need be), for a read that is not in order.
    private func onTape() throws -> OnTape {
        let tape = try state.pointee.tapeForReads()
        return OnTape(
            tape: tape, entry: knownEntry >= 0 ? knownEntry : tape.pointee.entry(startingAt: object), state: state)
    }

    /// Reads of this object's members on the tape.
    private struct OnTape {
        let tape: UnsafePointer<JSONTape>
        let entry: Int
        let state: UnsafeMutablePointer<RecordReadState>

        var decoder: ByteDecoder { ByteDecoder(tape: tape, entry: entry) }
        func decoder(_ value: Int) -> ByteDecoder { ByteDecoder(tape: tape, entry: value) }

        /// The value entry of the member named `key` (exactly its scalars), or `nil`.
        func member(_ key: String) -> Int? { ByteDecoder.Keyed<AnyCodingKey>(decoder: decoder).find(named: key) }

        /// The value entry of the member named `key` when it is there and not `null`.
        func present(_ key: String) -> Int? {
            guard let value = member(key), tape.pointee.bytes[tape.pointee[value].start] != UInt8(ascii: "n") else {
                return nil
            }
            return value
        }

        /// The value entry of the member named `key`: `keyNotFound` when it is missing, as `Codable` says it.
        func required(_ key: String) throws -> Int {
            guard let value = member(key) else {
                throw DecodingError.keyNotFound(
                    AnyCodingKey(key),
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "no value for '\(key)'"))
            }
            return value
        }

        /// A scalar read with `read` from the member's value, which must be there: `typeMismatch` naming the
        /// member's path for a value of another type (`null` included), as the `Codable` path words it.
        func scalar<T>(_ type: T.Type, _ key: String, _ read: (JSONTape, Int) throws(JSONParseError) -> T?) throws
            -> T
        {
            let value = try required(key)
            guard let result = try read(tape.pointee, value) else { throw decoder(value).mismatch(type) }
            return result
        }

        /// ``scalar(_:_:_:)`` for a member that may be missing or `null`.
        func optionalScalar<T>(
            _ type: T.Type, _ key: String, _ read: (JSONTape, Int) throws(JSONParseError) -> T?
        ) throws -> T? {
            guard let value = present(key) else { return nil }
            guard let result = try read(tape.pointee, value) else { throw decoder(value).mismatch(type) }
            return result
        }

        /// The member's value read by `T`'s `Decodable` conformance.
        func decodable<T: Decodable>(_ type: T.Type, _ key: String) throws -> T {
            try decoder(try required(key)).decodeValue(type)
        }

        /// The member's object read by `T`.
        func object<T: RecordDecodable>(_ type: T.Type, _ key: String) throws -> T {
            try RecordReader.read(type, at: decoder(try required(key)), state)
        }

        /// The elements of the array at entry `value`, each an object read by `T`.
        func elements<T: RecordDecodable>(of value: Int, _ type: T.Type) throws -> [T] {
            guard tape.pointee.bytes[tape.pointee[value].start] == UInt8(ascii: "[") else {
                throw decoder(value).mismatch([T].self)
            }
            let end = tape.pointee[value].next
            var elements: [T] = []
            var element = value + 1
            while element < end {
                elements.append(try RecordReader.read(type, at: decoder(element), state))
                element = tape.pointee[element].next
            }
            return elements
        }
    }

    @inline(__always)
    private static func integer<I: FixedWidthInteger>(_ type: I.Type) -> (JSONTape, Int) throws(JSONParseError) -> I? {
        { tape, value throws(JSONParseError) in try ByteDecoder.integer(tape, value, as: type) }
    }

    private static func float(_ tape: JSONTape, _ value: Int) throws(JSONParseError) -> Float? {
        try ByteDecoder.double(tape, value).map(Float.init)
    }

    // MARK: The object

    /// The keys and indexes from the record's top down to this object.
    public var codingPath: [any CodingKey] {
        guard let tape = try? onTape() else { return [] }  // Not JSON: a read of a member throws why.
        return tape.decoder.codingPath
    }

    /// The names of the object's members, in the order they are stored (none when the record is not JSON).
    public var keys: [String] {
        guard let tape = try? onTape() else { return [] }
        var keys: [String] = []
        let end = tape.tape.pointee[tape.entry].next
        var name = tape.entry + 1
        while name < end {
            keys.append(tape.tape.pointee.name(name))
            name = tape.tape.pointee[name + 1].next
        }
        return keys
    }

    /// Whether the object has a member named `key` (`null` or not).
    public func contains(_ key: String) -> Bool { (try? onTape())?.member(key) != nil }

    /// Whether the member is missing or `null`.
    public func decodeNil(forKey key: String) -> Bool { (try? onTape())?.present(key) == nil }

    // MARK: Required members

    /// The member's text.
    /// - Throws: `DecodingError` naming the member's path when it is missing or not a string (turned into a
    ///   ``/StrataCore/StorageError`` by the store); ``JSONParseError`` when the record is not valid JSON.
    public func decode(_ type: String.Type = String.self, forKey key: String) throws -> String {
        if let start = next(key), let (value, end) = state.pointee.string(at: start) { return finish(value, at: end) }
        return try onTape().scalar(type, key, ByteDecoder.string)
    }
    /// The member's boolean.
    public func decode(_ type: Bool.Type = Bool.self, forKey key: String) throws -> Bool {
        if let start = next(key), let (value, end) = state.pointee.bool(at: start) { return finish(value, at: end) }
        return try onTape().scalar(type, key) { tape, value throws(JSONParseError) in ByteDecoder.bool(tape, value) }
    }
    /// The member's number.
    public func decode(_ type: Double.Type = Double.self, forKey key: String) throws -> Double {
        if let start = next(key), let (value, end) = state.pointee.double(at: start) { return finish(value, at: end) }
        return try onTape().scalar(type, key, ByteDecoder.double)
    }
    /// The member's number, rounded to the nearest `Float`.
    public func decode(_ type: Float.Type = Float.self, forKey key: String) throws -> Float {
        if let start = next(key), let (value, end) = state.pointee.double(at: start) {
            return finish(Float(value), at: end)
        }
        return try onTape().scalar(type, key, Self.float)
    }
    /// The member's integer: a number that is not one, or does not fit, is a type mismatch.
    public func decode(_ type: Int.Type = Int.self, forKey key: String) throws -> Int { try integer(type, key) }
    /// The member's integer.
    public func decode(_ type: Int8.Type = Int8.self, forKey key: String) throws -> Int8 { try integer(type, key) }
    /// The member's integer.
    public func decode(_ type: Int16.Type = Int16.self, forKey key: String) throws -> Int16 { try integer(type, key) }
    /// The member's integer.
    public func decode(_ type: Int32.Type = Int32.self, forKey key: String) throws -> Int32 { try integer(type, key) }
    /// The member's integer.
    public func decode(_ type: Int64.Type = Int64.self, forKey key: String) throws -> Int64 { try integer(type, key) }
    /// The member's integer.
    public func decode(_ type: UInt.Type = UInt.self, forKey key: String) throws -> UInt { try integer(type, key) }
    /// The member's integer.
    public func decode(_ type: UInt8.Type = UInt8.self, forKey key: String) throws -> UInt8 { try integer(type, key) }
    /// The member's integer.
    public func decode(_ type: UInt16.Type = UInt16.self, forKey key: String) throws -> UInt16 {
        try integer(type, key)
    }
    /// The member's integer.
    public func decode(_ type: UInt32.Type = UInt32.self, forKey key: String) throws -> UInt32 {
        try integer(type, key)
    }
    /// The member's integer.
    public func decode(_ type: UInt64.Type = UInt64.self, forKey key: String) throws -> UInt64 {
        try integer(type, key)
    }
    /// The member's array of strings.
    public func decode(_ type: [String].Type = [String].self, forKey key: String) throws -> [String] {
        if let start = next(key), let (value, end) = state.pointee.strings(at: start) { return finish(value, at: end) }
        return try onTape().decodable(type, key)
    }
    /// The member's array of integers.
    public func decode(_ type: [Int].Type = [Int].self, forKey key: String) throws -> [Int] {
        try onTape().decodable(type, key)
    }
    /// The member's array of numbers.
    public func decode(_ type: [Double].Type = [Double].self, forKey key: String) throws -> [Double] {
        try onTape().decodable(type, key)
    }
    /// The member's object, read by `T`'s own ``RecordDecodable/init(record:)``.
    public func decode<T: RecordDecodable>(_ type: T.Type = T.self, forKey key: String) throws -> T {
        if case .value(let start?) = inOrderObject(key, ifPresent: false) { return try objectInOrder(type, at: start) }
        return try onTape().object(type, key)
    }
    /// The member's array of objects, each read by `T`'s ``RecordDecodable/init(record:)``.
    public func decode<T: RecordDecodable>(_ type: [T].Type = [T].self, forKey key: String) throws -> [T] {
        let tape = try onTape()
        return try tape.elements(of: try tape.required(key), T.self)
    }
    /// The member's value, read by `T`'s `Decodable` conformance (a date, a URL, a dictionary, an enum, ...).
    public func decode<T: Decodable>(_ type: T.Type = T.self, forKey key: String) throws -> T {
        try onTape().decodable(type, key)
    }
    /// A reader of the member's object, for a nested object read in place.
    public func nested(forKey key: String) throws -> RecordReader {
        let tape = try onTape()
        let value = try tape.required(key)
        let decoder = tape.decoder(value)
        guard decoder.first == UInt8(ascii: "{") else { throw decoder.mismatch([String: String].self) }
        return RecordReader(state: state, object: decoder.offset, entry: value)
    }

    @inline(__always)
    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: String) throws -> I {
        if let start = next(key), let (value, end) = state.pointee.integer(at: start, as: type) {
            return finish(value, at: end)
        }
        return try onTape().scalar(type, key, Self.integer(type))
    }

    // MARK: Members that may be missing or null

    /// The member's text, or `nil` when it is missing or `null`.
    public func decodeIfPresent(_ type: String.Type = String.self, forKey key: String) throws -> String? {
        switch nextPresent(key) {
        case .missing: return nil
        case .value(let start):
            if let (value, end) = state.pointee.string(at: start) { return finish(value, at: end) }
        case .unknown: break
        }
        return try onTape().optionalScalar(type, key, ByteDecoder.string)
    }
    /// The member's boolean, or `nil`.
    public func decodeIfPresent(_ type: Bool.Type = Bool.self, forKey key: String) throws -> Bool? {
        switch nextPresent(key) {
        case .missing: return nil
        case .value(let start):
            if let (value, end) = state.pointee.bool(at: start) { return finish(value, at: end) }
        case .unknown: break
        }
        return try onTape().optionalScalar(type, key) { tape, value throws(JSONParseError) in
            ByteDecoder.bool(tape, value)
        }
    }
    /// The member's number, or `nil`.
    public func decodeIfPresent(_ type: Double.Type = Double.self, forKey key: String) throws -> Double? {
        switch nextPresent(key) {
        case .missing: return nil
        case .value(let start):
            if let (value, end) = state.pointee.double(at: start) { return finish(value, at: end) }
        case .unknown: break
        }
        return try onTape().optionalScalar(type, key, ByteDecoder.double)
    }
    /// The member's number as a `Float`, or `nil`.
    public func decodeIfPresent(_ type: Float.Type = Float.self, forKey key: String) throws -> Float? {
        switch nextPresent(key) {
        case .missing: return nil
        case .value(let start):
            if let (value, end) = state.pointee.double(at: start) { return finish(Float(value), at: end) }
        case .unknown: break
        }
        return try onTape().optionalScalar(type, key, Self.float)
    }
    /// The member's integer, or `nil`.
    public func decodeIfPresent(_ type: Int.Type = Int.self, forKey key: String) throws -> Int? {
        switch nextPresent(key) {
        case .missing: return nil
        case .value(let start):
            if let (value, end) = state.pointee.integer(at: start, as: type) { return finish(value, at: end) }
        case .unknown: break
        }
        return try onTape().optionalScalar(type, key, ByteDecoder.int)
    }
    /// The member's integer, or `nil`.
    public func decodeIfPresent(_ type: Int64.Type = Int64.self, forKey key: String) throws -> Int64? {
        switch nextPresent(key) {
        case .missing: return nil
        case .value(let start):
            if let (value, end) = state.pointee.integer(at: start, as: type) { return finish(value, at: end) }
        case .unknown: break
        }
        return try onTape().optionalScalar(type, key, Self.integer(type))
    }
    /// The member's object read by `T`, or `nil`.
    public func decodeIfPresent<T: RecordDecodable>(_ type: T.Type = T.self, forKey key: String) throws -> T? {
        if case .value(let start) = inOrderObject(key, ifPresent: true) {
            guard let start else { return nil }
            return try objectInOrder(type, at: start)
        }
        let tape = try onTape()
        guard let value = tape.present(key) else { return nil }
        return try Self.read(type, at: tape.decoder(value), state)
    }
    /// The member's array of objects read by `T`, or `nil`.
    public func decodeIfPresent<T: RecordDecodable>(_ type: [T].Type = [T].self, forKey key: String) throws -> [T]? {
        let tape = try onTape()
        guard let value = tape.present(key) else { return nil }
        return try tape.elements(of: value, T.self)
    }
    /// The member's value read by `T`'s `Decodable` conformance, or `nil` when it is missing or `null`.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type = T.self, forKey key: String) throws -> T? {
        let tape = try onTape()
        guard let value = tape.present(key) else { return nil }
        return try tape.decoder(value).decodeValue(type)
    }
}

@available(*, unavailable, message: "a reader is lent for one init(record:) call, on the thread that makes it")
extension RecordReader: Sendable {}
