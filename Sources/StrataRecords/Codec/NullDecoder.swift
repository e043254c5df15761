/// The decoder of a member that is not there, for `superDecoder()` and `superDecoder(forKey:)`: it holds `null`,
/// as Foundation's decoder gives. A single value reads as nil; asking it for a value or a container is an error
/// naming the path.
struct NullDecoder: Decoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func missing<T>(_ type: T.Type) -> DecodingError {
        DecodingError.valueNotFound(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "found null (no such member)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw missing(KeyedDecodingContainer<Key>.self)
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw missing([Any].self) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    /// A value of `null`: `nil` for an optional (or any type that decodes `null`, as with Foundation's decoder,
    /// which hands such a type the decoder), an error for a scalar.
    struct Single: SingleValueDecodingContainer {
        let decoder: NullDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        func decodeNil() -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
        // The scalars, which would otherwise ask this container again through `T(from:)`.
        func decode(_ type: Bool.Type) throws -> Bool { throw decoder.missing(type) }
        func decode(_ type: String.Type) throws -> String { throw decoder.missing(type) }
        func decode(_ type: Double.Type) throws -> Double { throw decoder.missing(type) }
        func decode(_ type: Float.Type) throws -> Float { throw decoder.missing(type) }
        func decode(_ type: Int.Type) throws -> Int { throw decoder.missing(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { throw decoder.missing(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { throw decoder.missing(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { throw decoder.missing(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { throw decoder.missing(type) }
        func decode(_ type: UInt.Type) throws -> UInt { throw decoder.missing(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { throw decoder.missing(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { throw decoder.missing(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { throw decoder.missing(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { throw decoder.missing(type) }
    }
}
