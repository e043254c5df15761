// The probe's containers: placeholders for every value, and a note of each key asked for.

extension FieldProbe {
    /// An object: each key asked for becomes a member of the node.
    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        /// The keys present: the type reads whatever keys a record has (a dictionary), so the path is open.
        var allKeys: [Key] {
            node.markOpen()
            return []
        }

        func contains(_ key: Key) -> Bool {
            _ = node.member(key)
            return true
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            _ = node.member(key)
            return false
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { scalar(key, false) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { scalar(key, "") }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { scalar(key, 0) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { scalar(key, 0) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { scalar(key, 0) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { scalar(key, 0) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { scalar(key, 0) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { scalar(key, 0) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { scalar(key, 0) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { scalar(key, 0) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { scalar(key, 0) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { scalar(key, 0) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { scalar(key, 0) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { scalar(key, 0) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try FieldProbe.decode(type, at: node.member(key), codingPath: codingPath + [key])
        }

        /// An optional value: decoded to learn what is below it; when its decoding refuses the placeholders, its
        /// path is left open and it is absent.
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            let member = node.member(key)
            do {
                return try FieldProbe.decode(type, at: member, codingPath: codingPath + [key])
            } catch {
                member.markOpen()
                return nil
            }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            let member = node.member(key)
            member.markObject()
            return KeyedDecodingContainer(Keyed<NestedKey>(node: member, codingPath: codingPath + [key]))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            node.member(key).markOpen()
            return Unkeyed(codingPath: codingPath + [key])
        }

        func superDecoder() throws -> any Decoder {
            node.markOpen()
            return FieldProbe(Node(), codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            let member = node.member(key)
            member.markOpen()
            return FieldProbe(member, codingPath: codingPath + [key])
        }

        private func scalar<T>(_ key: Key, _ value: T) -> T {
            node.member(key).markScalar()
            return value
        }
    }

    /// An array: empty, and open below (paths into array elements are not learned). A type that reads a fixed
    /// number of elements anyway gets placeholders.
    struct Unkeyed: UnkeyedDecodingContainer {
        let codingPath: [any CodingKey]
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }

        mutating func decodeNil() throws -> Bool { false }
        mutating func decode(_ type: Bool.Type) throws -> Bool { false }
        mutating func decode(_ type: String.Type) throws -> String { "" }
        mutating func decode(_ type: Double.Type) throws -> Double { 0 }
        mutating func decode(_ type: Float.Type) throws -> Float { 0 }
        mutating func decode(_ type: Int.Type) throws -> Int { 0 }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { 0 }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { 0 }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { 0 }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { 0 }
        mutating func decode(_ type: UInt.Type) throws -> UInt { 0 }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try FieldProbe.decode(type, at: Node(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            KeyedDecodingContainer(Keyed<NestedKey>(node: Node(), codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            Unkeyed(codingPath: codingPath)
        }
        mutating func superDecoder() throws -> any Decoder { FieldProbe(Node(), codingPath: codingPath) }
    }

    /// One value: a scalar, unless the type asks whether it is `null` first (it takes several shapes: open).
    struct Single: SingleValueDecodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool {
            node.markOpen()
            return false
        }

        func decode(_ type: Bool.Type) throws -> Bool { scalar(false) }
        func decode(_ type: String.Type) throws -> String { scalar("") }
        func decode(_ type: Double.Type) throws -> Double { scalar(0) }
        func decode(_ type: Float.Type) throws -> Float { scalar(0) }
        func decode(_ type: Int.Type) throws -> Int { scalar(0) }
        func decode(_ type: Int8.Type) throws -> Int8 { scalar(0) }
        func decode(_ type: Int16.Type) throws -> Int16 { scalar(0) }
        func decode(_ type: Int32.Type) throws -> Int32 { scalar(0) }
        func decode(_ type: Int64.Type) throws -> Int64 { scalar(0) }
        func decode(_ type: UInt.Type) throws -> UInt { scalar(0) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { scalar(0) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { scalar(0) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { scalar(0) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { scalar(0) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try FieldProbe.decode(type, at: node, codingPath: codingPath)
        }

        private func scalar<T>(_ value: T) -> T {
            node.markScalar()
            return value
        }
    }
}
