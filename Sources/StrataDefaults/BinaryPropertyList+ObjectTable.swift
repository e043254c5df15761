package import Foundation

extension BinaryPropertyList {
    /// A `bplist00` document built object by object, each reference chosen by the caller: shared objects (a
    /// DAG, as Apple's writer makes for equal values), references back up (a cycle), twin keys. What the tests,
    /// the torture harness and the fuzzer build hostile documents with; ``BinaryPropertyList/encode(_:)`` writes
    /// every value of a suite instead.
    ///
    /// ```swift
    /// var table = BinaryPropertyList.ObjectTable()
    /// let leaf = table.add(.integer(1))
    /// let pair = table.addArray([leaf, leaf])       // one object, referred to twice
    /// let key = table.add(.string("k"))
    /// let top = table.addDictionary([(key, pair)])
    /// let data = table.encoded(top: top)
    /// ```
    package struct ObjectTable: Sendable {
        enum Object: Sendable {
            case scalar([UInt8])
            case array([Int])
            case dictionary(keys: [Int], values: [Int])
        }

        var objects: [Object] = []

        /// How many objects the table holds; the next one added gets this index.
        package var count: Int { objects.count }

        package init() {}

        /// Adds a scalar (a container is written as an empty one of its kind); returns its index.
        @discardableResult
        package mutating func add(_ scalar: PropertyListValue) -> Int {
            switch scalar {
            case .array: return addArray([])
            case .dictionary: return addDictionary([])
            default:
                var writer = Writer(refSize: 1, objects: 1, capacity: 16)
                writer.write(scalar, index: 0)
                objects.append(.scalar(writer.out.bytes))
                return objects.count - 1
            }
        }

        /// Adds an array of the objects at `references` (any index, even one not added yet); returns its index.
        @discardableResult
        package mutating func addArray(_ references: [Int]) -> Int {
            objects.append(.array(references))
            return objects.count - 1
        }

        /// Adds a dictionary of the given key and value references; returns its index.
        @discardableResult
        package mutating func addDictionary(_ entries: [(key: Int, value: Int)]) -> Int {
            objects.append(.dictionary(keys: entries.map(\.key), values: entries.map(\.value)))
            return objects.count - 1
        }

        /// The document, with `top` as its top object.
        package func encoded(top: Int) -> Data {
            let refSize = byteWidth(UInt64(max(objects.count, 1)))
            var writer = Writer(refSize: refSize, objects: objects.count, capacity: 64 + objects.count * 16)
            writer.out.append(magic)
            for (index, object) in objects.enumerated() {
                writer.offsets[index] = writer.out.count
                switch object {
                case .scalar(let bytes):
                    writer.out.append(bytes)
                case .array(let references):
                    writer.appendMarker(0xA0, count: references.count)
                    for reference in references { writer.out.appendBigEndian(UInt64(reference), width: refSize) }
                case .dictionary(let keys, let values):
                    writer.appendMarker(0xD0, count: keys.count)
                    for reference in keys + values { writer.out.appendBigEndian(UInt64(reference), width: refSize) }
                }
            }
            return writer.finish(top: top)
        }
    }
}
