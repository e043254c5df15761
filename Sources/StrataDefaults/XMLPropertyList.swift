public import Foundation
import StrataCore

/// Apple's XML property list format: the writer produces what `plutil -convert xml1` does, and the reader accepts
/// what macOS's `defaults export` and `plutil` write (comments, CDATA and character entities included).
public enum XMLPropertyList {
    // MARK: Writing

    /// Serializes a value as an XML property list.
    public static func encode(_ value: PropertyListValue) -> Data {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        write(value, indent: 0, into: &out)
        out += "</plist>\n"
        return Data(out.utf8)
    }

    /// Writes `value` at `indent` tabs, and what it holds below it: a stack of what is still to write instead of
    /// recursion, so no depth overflows the thread's stack.
    static func write(_ value: PropertyListValue, indent: Int, into out: inout String) {
        var pending: [(value: PropertyListValue?, text: String, indent: Int)] = [(value, "", indent)]
        while let (next, text, indent) = pending.popLast() {
            guard let value = next else {
                out += text
                continue
            }
            let tabs = String(repeating: "\t", count: indent)
            switch value {
            case .bool(let flag): out += tabs + (flag ? "<true/>\n" : "<false/>\n")
            case .integer(let number): out += tabs + "<integer>\(number)</integer>\n"
            case .real(let number): out += tabs + "<real>\(realText(number))</real>\n"
            case .string(let string): out += tabs + "<string>\(escaped(string))</string>\n"
            case .date(let date): out += tabs + "<date>\(dateFormatter.string(from: date))</date>\n"
            case .data(let data): out += tabs + "<data>\(data.base64EncodedString())</data>\n"
            case .array(let items):
                if items.isEmpty {
                    out += tabs + "<array/>\n"
                    continue
                }
                out += tabs + "<array>\n"
                pending.append((nil, tabs + "</array>\n", 0))
                for item in items.reversed() { pending.append((item, "", indent + 1)) }
            case .dictionary(let items):
                if items.isEmpty {
                    out += tabs + "<dict/>\n"
                    continue
                }
                out += tabs + "<dict>\n"
                pending.append((nil, tabs + "</dict>\n", 0))
                // Sorted by bytes: twin keys (NFC and NFD) are two entries, in the same order every time.
                for (key, item) in items.sorted(by: { $0.key < $1.key }).reversed() {
                    pending.append((item, "", indent + 1))
                    pending.append((nil, tabs + "\t<key>\(escaped(key.string))</key>\n", 0))
                }
            }
        }
    }

    static func realText(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "+inf" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    /// Escapes markup by scalar, not by `Character`: a combining mark after `&` or `<` makes one `Character`
    /// that equals neither, and must not hide the markup from the escaping.
    static func escaped(_ string: String) -> String {
        guard
            string.utf8.contains(where: {
                $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">")
            })
        else { return string }
        var out = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    nonisolated(unsafe) static let dateFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }()

    // MARK: Reading

    /// Reads an XML property list.
    /// - Parameters:
    ///   - data: The document.
    ///   - limits: The largest value accepted. The default is ``PropertyListLimits/default``.
    /// - Throws: ``PropertyListError`` naming the problem and its byte offset: malformed XML, a key twice in a
    ///   dictionary, or a value over `limits`.
    public static func decode(
        _ data: Data, limits: PropertyListLimits = .default
    ) throws(PropertyListError) -> PropertyListValue {
        var parser = Parser(bytes: [UInt8](data), limits: limits.supported)
        return try parser.document()
    }

    struct Parser {
        let bytes: [UInt8]
        let limits: PropertyListLimits
        var position = 0
        /// The footprint of everything read so far (XML shares nothing, so the running total is the expanded one).
        var footprint = PropertyListValue.Footprint(size: 0, nodes: 0, height: 0)

        init(bytes: [UInt8], limits: PropertyListLimits) {
            self.bytes = bytes
            self.limits = limits
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }  // A UTF-8 byte order mark.
        }

        func fail(_ message: String) -> PropertyListError { PropertyListError(message, offset: position) }

        mutating func document() throws(PropertyListError) -> PropertyListValue {
            try skipMisc()
            guard position < bytes.count else { throw fail("the file holds no property list") }
            var tag = try openTag()
            var wrapped = false
            if tag.name == "plist" {
                wrapped = true
                try skipMisc()
                tag = try openTag()
            }
            let value = try value(for: tag)
            try skipMisc()
            if wrapped {
                try expectClose("plist")
                try skipMisc()
            }
            guard position == bytes.count else { throw fail("unexpected content after the property list") }
            return value
        }

        struct Tag {
            var name: String
            var selfClosing: Bool
        }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        func starts(with text: String) -> Bool {
            let utf8 = Array(text.utf8)
            return position + utf8.count <= bytes.count && bytes[position..<(position + utf8.count)].elementsEqual(utf8)
        }

        mutating func skip(past terminator: String) throws(PropertyListError) {
            let target = Array(terminator.utf8)
            while position + target.count <= bytes.count {
                if bytes[position..<(position + target.count)].elementsEqual(target) {
                    position += target.count
                    return
                }
                position += 1
            }
            throw fail("unterminated markup: no '\(terminator)'")
        }

        /// Skips white space, the XML declaration, the doctype and comments.
        mutating func skipMisc() throws(PropertyListError) {
            while true {
                skipWhitespace()
                if starts(with: "<?") {
                    try skip(past: "?>")
                } else if starts(with: "<!--") {
                    try skip(past: "-->")
                } else if starts(with: "<!DOCTYPE") {
                    try skip(past: ">")
                } else {
                    return
                }
            }
        }

        mutating func openTag() throws(PropertyListError) -> Tag {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else {
                throw fail("expected an element")
            }
            guard position + 1 < bytes.count, bytes[position + 1] != UInt8(ascii: "/") else {
                throw fail("unexpected closing tag")
            }
            position += 1
            let nameStart = position
            while position < bytes.count, bytes[position].isNameByte { position += 1 }
            let name = String(decoding: bytes[nameStart..<position], as: UTF8.self)
            guard !name.isEmpty else { throw fail("an element has no name") }
            // Attributes (only <plist version="1.0"> has any) are skipped.
            var quote: UInt8?
            while position < bytes.count {
                let byte = bytes[position]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    let selfClosing = bytes[position - 1] == UInt8(ascii: "/")
                    position += 1
                    return Tag(name: name, selfClosing: selfClosing)
                }
                position += 1
            }
            throw fail("unterminated <\(name)> tag")
        }

        mutating func expectClose(_ name: String) throws(PropertyListError) {
            skipWhitespace()
            guard starts(with: "</\(name)") else { throw fail("expected </\(name)>") }
            position += 2 + name.utf8.count
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
                throw fail("expected </\(name)>")
            }
            position += 1
        }

        /// Reads character data up to the next tag, resolving entities and CDATA sections.
        mutating func text(of name: String) throws(PropertyListError) -> String {
            var out = [UInt8]()
            while position < bytes.count {
                if starts(with: "<![CDATA[") {
                    position += 9
                    let start = position
                    try skip(past: "]]>")
                    out += bytes[start..<(position - 3)]
                } else if starts(with: "<!--") {
                    try skip(past: "-->")
                } else if bytes[position] == UInt8(ascii: "<") {
                    break
                } else if bytes[position] == UInt8(ascii: "&") {
                    out += try entity()
                } else {
                    out.append(bytes[position])
                    position += 1
                }
            }
            try expectClose(name)
            guard let string = String(validating: out, as: UTF8.self) else {
                throw fail("<\(name)> is not valid UTF-8")
            }
            return string
        }

        mutating func entity() throws(PropertyListError) -> [UInt8] {
            let start = position
            guard let end = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw fail("an unterminated character entity")
            }
            let name = String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
            position = end + 1
            switch name {
            case "amp": return Array("&".utf8)
            case "lt": return Array("<".utf8)
            case "gt": return Array(">".utf8)
            case "quot": return Array("\"".utf8)
            case "apos": return Array("'".utf8)
            default:
                var code: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    code = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    code = UInt32(name.dropFirst())
                }
                guard let code, let scalar = Unicode.Scalar(code) else {
                    position = start
                    throw fail("unknown character entity '&\(name);'")
                }
                return Array(String(Character(scalar)).utf8)
            }
        }

        /// An array or a dictionary being read, with what it holds so far.
        struct Container {
            let isDictionary: Bool
            /// Where its value starts (just past its opening tag), for errors about it.
            let start: Int
            var elements: [PropertyListValue] = []
            var members: [ExactString: PropertyListValue] = [:]
            /// A dictionary's key read last, with where it starts, waiting for its value.
            var key: (name: String, start: Int)?

            var value: PropertyListValue { isDictionary ? .dictionary(members) : .array(elements) }
        }

        /// Reads the value `first` opens, and every value inside it, each counted against the limits: depth first,
        /// with a stack of the containers open instead of recursion.
        mutating func value(for first: Tag) throws(PropertyListError) -> PropertyListValue {
            var open: [Container] = []
            var tag = first
            while true {
                let start = position
                // Its depth is the number of containers around it.
                footprint.height = max(footprint.height, open.count)
                footprint.nodes += 1
                if let excess = footprint.excess(over: limits) { throw PropertyListError(excess, offset: start) }
                var read: (value: PropertyListValue, start: Int)?
                if (tag.name == "array" || tag.name == "dict") && !tag.selfClosing {
                    open.append(Container(isDictionary: tag.name == "dict", start: start))
                } else {
                    read = (try scalar(for: tag), start)
                }
                // Hand each value read to its container, and close the containers that end, until one holds more.
                while true {
                    if let (value, start) = read {
                        footprint.size = PropertyListValue.saturatingSum(
                            footprint.size, PropertyListValue.ownSize(value))
                        if case .dictionary(let items) = value { footprint.nodes += items.count }
                        if let excess = footprint.excess(over: limits) {
                            throw PropertyListError(excess, offset: start)
                        }
                        guard !open.isEmpty else { return value }
                        try add(value, to: &open[open.count - 1])
                        read = nil
                    }
                    try skipMisc()
                    guard starts(with: "</") else { break }
                    let container = open.removeLast()
                    try expectClose(container.isDictionary ? "dict" : "array")
                    read = (container.value, container.start)
                }
                if open[open.count - 1].isDictionary {
                    let keyTag = try openTag()
                    guard keyTag.name == "key" else { throw fail("expected <key> in <dict>, found <\(keyTag.name)>") }
                    let keyStart = position
                    open[open.count - 1].key = (keyTag.selfClosing ? "" : try text(of: "key"), keyStart)
                    try skipMisc()
                }
                tag = try openTag()
            }
        }

        /// Hands a value read to its container: an element, or the value of the dictionary's key read before it.
        func add(_ value: PropertyListValue, to container: inout Container) throws(PropertyListError) {
            guard container.isDictionary else { return container.elements.append(value) }
            let key = container.key ?? ("", container.start)
            container.key = nil
            // Keys are compared by their scalars: NFC and NFD spellings are two keys, as in the file.
            guard container.members.updateValue(value, forKey: ExactString(key.name)) == nil else {
                throw PropertyListError(
                    "the dictionary holds the key '\(key.name.debugDescription.dropFirst().dropLast())' twice",
                    offset: key.start)
            }
        }

        /// Reads a scalar, or an empty array or dictionary (`<array/>`, `<dict/>`), whose opening tag was `tag`.
        mutating func scalar(for tag: Tag) throws(PropertyListError) -> PropertyListValue {
            switch tag.name {
            case "true", "false":
                if !tag.selfClosing { try expectClose(tag.name) }
                return .bool(tag.name == "true")
            case "string":
                return .string(tag.selfClosing ? "" : try text(of: "string"))
            case "integer":
                let text =
                    tag.selfClosing ? "" : try text(of: "integer").trimmingCharacters(in: .whitespacesAndNewlines)
                if let number = Int64(text) { return .integer(number) }
                if text.hasPrefix("0x") || text.hasPrefix("0X"), let number = Int64(text.dropFirst(2), radix: 16) {
                    return .integer(number)
                }
                throw fail("'\(text)' is not a 64-bit integer")
            case "real":
                let text = tag.selfClosing ? "" : try text(of: "real").trimmingCharacters(in: .whitespacesAndNewlines)
                switch text.lowercased() {
                case "nan": return .real(.nan)
                case "+inf", "inf", "+infinity", "infinity": return .real(.infinity)
                case "-inf", "-infinity": return .real(-.infinity)
                default:
                    guard let number = Double(text) else { throw fail("'\(text)' is not a real number") }
                    return .real(number)
                }
            case "date":
                let text = tag.selfClosing ? "" : try text(of: "date").trimmingCharacters(in: .whitespacesAndNewlines)
                guard let date = dateFormatter.date(from: text) else { throw fail("'\(text)' is not a plist date") }
                return .date(date)
            case "data":
                let text = tag.selfClosing ? "" : try text(of: "data")
                let compact = text.filter { !$0.isWhitespace }
                guard let data = Data(base64Encoded: compact) else { throw fail("<data> is not valid base64") }
                return .data(data)
            case "array": return .array([])
            case "dict": return .dictionary([:])
            default:
                throw fail("unknown element <\(tag.name)>")
            }
        }
    }
}

extension UInt8 {
    fileprivate var isNameByte: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
            || (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
    }
}
