public import Foundation
import StrataCore

extension BinaryPropertyList {
    /// Reads a `bplist00` document.
    ///
    /// Objects may be shared (one object referred to from many places, as Apple's writer does for equal values);
    /// each is decoded once, and its expanded size, value count and height are remembered, so a reference costs
    /// what it expands to and a document over `limits` is refused before anything walks the expanded value. The
    /// reader keeps its own stack of the containers being read, so no document can overflow the thread's.
    /// - Parameters:
    ///   - data: The document.
    ///   - limits: The largest value accepted, measured expanded. The default is ``PropertyListLimits/default``.
    /// - Throws: ``PropertyListError`` naming the problem and its byte offset: a bad magic or trailer, an offset
    ///   or reference out of range, a length that runs past the end, a cycle, a non-string key, a key twice in a
    ///   dictionary, or a value over `limits` (too deep, too many values or bytes once references are expanded).
    public static func decode(
        _ data: Data, limits: PropertyListLimits = .default
    ) throws(PropertyListError) -> PropertyListValue {
        let bytes = [UInt8](data)
        var reader = try Reader(bytes, limits: limits)
        return try reader.topValue()
    }

    struct Reader {
        let bytes: [UInt8]
        let offsetSize: Int
        let refSize: Int
        let objectCount: Int
        let topObject: Int
        let tableOffset: Int
        let limits: PropertyListLimits
        /// Each object once decoded, with its expanded footprint: a shared object is read once.
        var decoded: [(value: PropertyListValue, footprint: PropertyListValue.Footprint)?]
        var inProgress: Set<Int> = []

        init(_ bytes: [UInt8], limits: PropertyListLimits) throws(PropertyListError) {
            self.bytes = bytes
            self.limits = limits.supported
            guard bytes.count >= 8 + 1 + 32, bytes.starts(with: BinaryPropertyList.magic) else {
                throw PropertyListError("not a bplist00 file (too short or wrong magic)", offset: 0)
            }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            refSize = Int(bytes[trailer + 7])
            // Any width from 1 to 8 bytes: libplist writes 3, 5, 6 and 7 too, and Apple's reader takes them.
            guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
                throw PropertyListError("the trailer gives impossible offset or reference sizes", offset: trailer + 6)
            }
            let count = Self.bigEndian(bytes, trailer + 8, 8)
            let top = Self.bigEndian(bytes, trailer + 16, 8)
            let table = Self.bigEndian(bytes, trailer + 24, 8)
            guard count > 0, count < UInt64(bytes.count), top < count, table >= 9, table < UInt64(trailer) else {
                throw PropertyListError(
                    "the trailer's object count, top object or table offset is out of range", offset: trailer + 8)
            }
            guard UInt64(trailer) - table >= count * UInt64(offsetSize) else {
                throw PropertyListError("the offset table runs into the trailer", offset: Int(table))
            }
            objectCount = Int(count)
            decoded = Array(repeating: nil, count: Int(count))
            topObject = Int(top)
            tableOffset = Int(table)
        }

        static func bigEndian(_ bytes: [UInt8], _ start: Int, _ width: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in start..<(start + width) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        func offset(of index: Int) throws(PropertyListError) -> Int {
            let value = Self.bigEndian(bytes, tableOffset + index * offsetSize, offsetSize)
            guard value >= 8, value < UInt64(tableOffset) else {
                throw PropertyListError(
                    "object \(index) has an offset outside the object area", offset: tableOffset + index * offsetSize)
            }
            return Int(value)
        }

        /// Reads the count that follows a marker whose low nibble is 0xF.
        func length(marker: UInt8, at position: inout Int) throws(PropertyListError) -> Int {
            let low = Int(marker & 0x0F)
            if low != 0x0F { return low }
            guard position < tableOffset else {
                throw PropertyListError("a length runs past the objects", offset: position)
            }
            let intMarker = bytes[position]
            guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
                throw PropertyListError("a length is not encoded as an integer", offset: position)
            }
            let width = 1 << Int(intMarker & 0x0F)
            guard position + 1 + width <= tableOffset else {
                throw PropertyListError("a length runs past the objects", offset: position)
            }
            let value = Self.bigEndian(bytes, position + 1, width)
            guard value <= UInt64(tableOffset) else {
                throw PropertyListError("a length of \(value) is larger than the file", offset: position)
            }
            position += 1 + width
            return Int(value)
        }

        func ensure(_ end: Int, from start: Int, _ what: String) throws(PropertyListError) {
            guard end <= tableOffset, end >= start else {
                throw PropertyListError("\(what) runs past the end of the objects", offset: start)
            }
        }

        func references(at position: Int, count: Int) throws(PropertyListError) -> [Int] {
            try ensure(position + count * refSize, from: position, "a container's references")
            var result = [Int]()
            result.reserveCapacity(count)
            for index in 0..<count {
                let reference = Self.bigEndian(bytes, position + index * refSize, refSize)
                guard reference < UInt64(objectCount) else {
                    throw PropertyListError(
                        "a reference to object \(reference) of \(objectCount)", offset: position + index * refSize)
                }
                result.append(Int(reference))
            }
            return result
        }

        /// A container being read: its children are read one after the other, each handed to it before the next
        /// begins (an array's elements; a dictionary's keys and values, alternating).
        struct Container {
            let index: Int
            let start: Int
            let depth: Int
            let isDictionary: Bool
            /// The references of its children: an array's elements; a dictionary's keys, then its values (as in
            /// the file), read key, value, key, value.
            let children: [Int]
            /// The next child to read, in reading order.
            var next = 0

            /// The reference of the child read `position`th.
            @inline(__always)
            func child(_ position: Int) -> Int {
                isDictionary ? children[(position & 1) * (children.count / 2) + position / 2] : children[position]
            }
            var elements: [PropertyListValue] = []
            var members: [ExactString: PropertyListValue] = [:]
            /// A dictionary's key read last, waiting for its value.
            var key: String?
            var footprint = PropertyListValue.Footprint(size: 0, nodes: 1, height: 0)
        }

        /// What ``begin(_:depth:isKey:)`` found: a value read whole (a scalar, or a shared object read already),
        /// or a container whose children are to be read.
        enum Begun {
            case value(PropertyListValue, PropertyListValue.Footprint)
            case container(Container)
        }

        /// Reads the top object, depth first: the container being read and a stack of those around it, instead of
        /// recursion.
        mutating func topValue() throws(PropertyListError) -> PropertyListValue {
            var current: Container
            switch try begin(topObject, depth: 0, isKey: false) {
            case .value(let value, _): return value
            case .container(let container): current = container
            }
            var around: [Container] = []
            while true {
                if current.next < current.children.count {
                    let position = current.next
                    current.next += 1
                    let isKey = current.isDictionary && position & 1 == 0
                    switch try begin(current.child(position), depth: current.depth + 1, isKey: isKey) {
                    case .value(let value, let footprint): try add(value, footprint, to: &current)
                    case .container(let child):
                        around.append(current)
                        current = child
                    }
                } else {
                    let (value, footprint) = try end(current)
                    guard var container = around.popLast() else { return value }
                    try add(value, footprint, to: &container)
                    current = container
                }
            }
        }

        /// Starts reading object `index` at `depth` (a dictionary's key when `isKey`, which must be a string).
        mutating func begin(_ index: Int, depth: Int, isKey: Bool) throws(PropertyListError) -> Begun {
            if let done = decoded[index] {
                // Shared: already within the size limits on its own; its height may still be too much here.
                guard depth + done.footprint.height <= limits.maximumDepth else {
                    throw PropertyListError(
                        "nesting deeper than \(limits.maximumDepth) levels", offset: try offset(of: index))
                }
                return .value(done.value, done.footprint)
            }
            guard depth <= limits.maximumDepth else {
                throw PropertyListError(
                    "nesting deeper than \(limits.maximumDepth) levels", offset: try offset(of: index))
            }
            var position = try offset(of: index)
            guard !inProgress.contains(index) else {
                throw PropertyListError("object \(index) contains itself", offset: position)
            }
            let start = position
            let marker = bytes[position]
            position += 1
            if isKey, marker >> 4 != 0x5, marker >> 4 != 0x6 {
                throw PropertyListError("a dictionary key is not a string", offset: start)
            }
            let value: PropertyListValue
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: value = .bool(false)
                case 0x09: value = .bool(true)
                default: throw PropertyListError("unsupported marker 0x\(String(marker, radix: 16))", offset: start)
                }
            case 0x1:
                let exponent = Int(marker & 0x0F)
                guard exponent <= 3 else {
                    throw PropertyListError("integers wider than 64 bits are not supported", offset: start)
                }
                let width = 1 << exponent
                try ensure(position + width, from: start, "an integer")
                let raw = Self.bigEndian(bytes, position, width)
                // Only 8-byte integers are signed; narrower ones are unsigned.
                value = .integer(width == 8 ? Int64(bitPattern: raw) : Int64(raw))
            case 0x2, 0x3:
                let width = 1 << Int(marker & 0x0F)
                guard width == 4 || width == 8, marker >> 4 == 0x2 || marker == 0x33 else {
                    throw PropertyListError("a real or date of unsupported width", offset: start)
                }
                try ensure(position + width, from: start, "a real or date")
                let raw = Self.bigEndian(bytes, position, width)
                let number = width == 8 ? Double(bitPattern: raw) : Double(Float(bitPattern: UInt32(raw)))
                value = marker >> 4 == 0x2 ? .real(number) : .date(Date(timeIntervalSinceReferenceDate: number))
            case 0x4:
                let count = try length(marker: marker, at: &position)
                try ensure(position + count, from: start, "data")
                value = .data(Data(bytes[position..<(position + count)]))
            case 0x5:
                let count = try length(marker: marker, at: &position)
                try ensure(position + count, from: start, "an ASCII string")
                let slice = bytes[position..<(position + count)]
                guard slice.allSatisfy({ $0 < 0x80 }) else {
                    throw PropertyListError("an ASCII string holds a non-ASCII byte", offset: start)
                }
                value = .string(String(decoding: slice, as: UTF8.self))
            case 0x6:
                let count = try length(marker: marker, at: &position)
                try ensure(position + count * 2, from: start, "a UTF-16 string")
                var units = [UInt16]()
                units.reserveCapacity(count)
                for unit in 0..<count {
                    units.append(UInt16(bytes[position + 2 * unit]) << 8 | UInt16(bytes[position + 2 * unit + 1]))
                }
                var scalars = String.UnicodeScalarView()
                let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF32.self, stoppingOnError: true) {
                    scalars.append(Unicode.Scalar($0)!)
                }
                guard !failed else { throw PropertyListError("a UTF-16 string is not valid UTF-16", offset: start) }
                value = .string(String(scalars))
            case 0xA:
                let count = try length(marker: marker, at: &position)
                let children = try references(at: position, count: count)
                inProgress.insert(index)
                var container = Container(
                    index: index, start: start, depth: depth, isDictionary: false, children: children)
                container.elements.reserveCapacity(count)
                return .container(container)
            case 0xD:
                let count = try length(marker: marker, at: &position)
                let children = try references(at: position, count: 2 * count)
                inProgress.insert(index)
                var container = Container(
                    index: index, start: start, depth: depth, isDictionary: true, children: children)
                container.members.reserveCapacity(count)
                return .container(container)
            default:
                throw PropertyListError("unsupported marker 0x\(String(marker, radix: 16))", offset: start)
            }
            let (read, footprint) = try finished(
                index, value, PropertyListValue.Footprint(size: 0, nodes: 1, height: 0), at: start)
            return .value(read, footprint)
        }

        /// Hands a child read to its container: an element, a dictionary's key, or the value of the key before it.
        func add(
            _ value: PropertyListValue, _ footprint: PropertyListValue.Footprint, to container: inout Container
        ) throws(PropertyListError) {
            guard container.isDictionary else {
                container.elements.append(value)
                return try container.footprint.add(footprint, at: container.start, within: limits)
            }
            guard let name = container.key else {
                // `begin` refused a key that is not a string before reading it.
                guard case .string(let name) = value else {
                    throw PropertyListError("a dictionary key is not a string", offset: container.start)
                }
                container.key = name
                return
            }
            container.key = nil
            // Keys are compared by their scalars: NFC and NFD spellings are two keys, as in the file.
            guard container.members.updateValue(value, forKey: ExactString(name)) == nil else {
                throw PropertyListError(
                    "the dictionary holds the key '\(name.debugDescription.dropFirst().dropLast())' twice",
                    offset: container.start)
            }
            try container.footprint.add(footprint, at: container.start, within: limits)
        }

        /// A container whose children are all read: its value.
        mutating func end(
            _ container: Container
        ) throws(PropertyListError) -> (value: PropertyListValue, footprint: PropertyListValue.Footprint) {
            inProgress.remove(container.index)
            let value: PropertyListValue =
                container.isDictionary ? .dictionary(container.members) : .array(container.elements)
            return try finished(container.index, value, container.footprint, at: container.start)
        }

        /// Counts `value`'s own size (and a dictionary's keys) in its footprint, checks the limits and remembers
        /// the object, read.
        mutating func finished(
            _ index: Int, _ value: PropertyListValue, _ footprint: PropertyListValue.Footprint, at start: Int
        ) throws(PropertyListError) -> (value: PropertyListValue, footprint: PropertyListValue.Footprint) {
            var footprint = footprint
            footprint.size = PropertyListValue.saturatingSum(footprint.size, PropertyListValue.ownSize(value))
            if case .dictionary(let items) = value { footprint.nodes += items.count }
            if let excess = footprint.excess(over: limits) { throw PropertyListError(excess, offset: start) }
            decoded[index] = (value, footprint)
            return (value, footprint)
        }
    }
}
