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

    struct Single: SingleValueDecodingContainer {
        let decoder: NullDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        func decodeNil() -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { throw decoder.missing(type) }
    }
}
