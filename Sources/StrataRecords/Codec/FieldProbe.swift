import Foundation

/// A decoder that learns a record type's fields without a record: it answers every request with a placeholder
/// (`""`, `0`, `false`, nothing at the end of an array) and notes which keys the type asks for, including the
/// optional ones (`decodeIfPresent` is answered by decoding the value, to learn what is below it).
///
/// A type that asks for the keys present (`allKeys`: a dictionary, an enum with associated values), reads an
/// array, or tries several shapes (`decodeNil` on a single value) leaves its path open. A value whose decoding
/// refuses the placeholders leaves its path open when it is optional or `CaseIterable` (its first case is used);
/// otherwise the record type cannot be probed and every path is open.
final class FieldProbe: Decoder {
    /// What the probe has seen at one path.
    final class Node {
        enum Kind { case unvisited, object, scalar, open }
        var kind = Kind.unvisited
        var members: [String: Node] = [:]

        func member(_ key: any CodingKey) -> Node {
            if let found = members[key.stringValue] { return found }
            let node = Node()
            members[key.stringValue] = node
            return node
        }

        func markObject() { kind = kind == .unvisited || kind == .object ? .object : .open }
        func markScalar() { kind = kind == .unvisited || kind == .scalar ? .scalar : .open }
        func markOpen() { kind = .open }

        var learned: RecordFields.Node {
            switch kind {
            case .object: .object(members.mapValues(\.learned))
            case .scalar: .scalar
            case .unvisited, .open: .open
            }
        }
    }

    /// How deep the probe follows nested types.
    static let maximumDepth = 16

    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ node: Node, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    /// The fields of `type`, or `.open` when its decoding refuses the probe.
    static func learn<T: Decodable>(_ type: T.Type) -> RecordFields.Node {
        if type == AnyRecord.self || type == JSONValue.self { return .open }
        let root = Node()
        do {
            _ = try decode(type, at: root, codingPath: [])
            return root.learned
        } catch {
            return .open
        }
    }

    /// A placeholder `T`, learning its fields at `node`.
    static func decode<T: Decodable>(_ type: T.Type, at node: Node, codingPath: [any CodingKey]) throws -> T {
        // A type that holds itself through an optional (a class's `parent`, a box) would be probed forever: past
        // this depth a path is open, and the optional above it absent.
        guard codingPath.count < maximumDepth else {
            node.markOpen()
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "the probe goes no deeper than \(maximumDepth) levels"))
        }
        // Values the record coder writes as one JSON scalar, and whose own decoding would refuse a placeholder.
        if let value = Self.scalar(type) {
            node.markScalar()
            return value
        }
        if type == JSONValue.self || type == AnyRecord.self {
            node.markOpen()
            return try T(from: FieldProbe(Node(), codingPath: codingPath))
        }
        do {
            return try T(from: FieldProbe(node, codingPath: codingPath))
        } catch {
            // A value that refuses the placeholders (an enum whose raw values do not include `""` or `0`): its
            // first case, or for a trivial type (no references: a raw-value enum, a struct of numbers) all-zero
            // bits, which the probe only stores and drops. Its path is then open.
            guard let stand = Self.firstCase(of: type) ?? Self.zeroed(type) else { throw error }
            node.markOpen()
            return stand
        }
    }

    /// A value of a trivial type with every bit zero: only ever stored in the probe's record and dropped (which,
    /// for a trivial type, does nothing), never read as a value.
    private static func zeroed<T>(_ type: T.Type) -> T? {
        guard _isPOD(type) else { return nil }
        return withUnsafeTemporaryAllocation(
            byteCount: Swift.max(1, MemoryLayout<T>.size),
            alignment: MemoryLayout<T>.alignment
        ) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            return buffer.baseAddress!.load(as: T.self)
        }
    }

    private static func scalar<T>(_ type: T.Type) -> T? {
        switch type {
        case is Date.Type: Date(timeIntervalSinceReferenceDate: 0) as? T
        case is UUID.Type: UUID() as? T
        case is URL.Type: URL(string: "a:b") as? T
        case is Data.Type: Data() as? T
        case is Decimal.Type: Decimal() as? T
        default: nil
        }
    }

    private static func firstCase<T>(of type: T.Type) -> T? {
        func first<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        return first(iterable) as? T
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        node.markObject()
        return KeyedDecodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        node.markOpen()
        return Unkeyed(codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(node: node, codingPath: codingPath)
    }
}
