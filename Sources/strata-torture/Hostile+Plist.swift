import Foundation
import StrataCore
import StrataDefaults

/// Hostile classes for property lists: bplist reference bombs, deep nesting, NFC/NFD twin keys. Each input is
/// planted as a suite file and opened; it must be moved aside (refused) or read exactly, in bounded time.
let plistHostileClasses: [HostileFormat] = [
    HostileFormat(
        name: "plist reference bomb", versionOffsets: [], make: { _ in Data() },
        feed: { data, root in
            let store = try openPlantedSuite(data, root: root)
            guard store.recoveries.isEmpty else { return true }
            // Read: it must have been small, and read exactly as built.
            let shape = store.object(forKey: "shape").flatMap { [Int](propertyListValue: $0) } ?? []
            guard shape.count == 2, let fanOut = shape.first, let levels = shape.last,
                isWithinLimits(fanOut: fanOut, levels: levels)
            else { throw WrongValue(description: "a reference bomb of shape \(shape) was accepted") }
            var expected = PropertyListValue.string("boom")
            for _ in 0..<levels { expected = .array(Array(repeating: expected, count: fanOut)) }
            guard store.object(forKey: "bomb") == expected else {
                throw WrongValue(description: "a shared-reference tree of shape \(shape) read wrong")
            }
            return false
        },
        generate: { generator, _, _ in
            // Mostly bombs (far over the limits), sometimes a small DAG that must read back expanded.
            let fanOut = Int.random(in: 2...64, using: &generator)
            let small = Bool.random(using: &generator)
            let levels = small ? Int.random(in: 1...3, using: &generator) : Int.random(in: 8...40, using: &generator)
            var table = BinaryPropertyList.ObjectTable()
            var previous = table.add(.string("boom"))
            for _ in 0..<levels { previous = table.addArray(Array(repeating: previous, count: fanOut)) }
            let shape = table.addArray([table.add(.integer(Int64(fanOut))), table.add(.integer(Int64(levels)))])
            let entries = [
                (table.add(.string("bomb")), previous), (table.add(.string("shape")), shape),
                (table.add(.string("theme")), table.add(.string("dark"))),
            ]
            let top = table.addDictionary(entries.shuffled(using: &generator))
            return table.encoded(top: top)
        }),
    HostileFormat(
        name: "plist deep nesting", versionOffsets: [], make: { _ in Data() },
        feed: { data, root in
            let store = try openPlantedSuite(data, root: root)
            let depth = declaredDepth(in: data)
            if depth > PropertyListLimits.defaultMaximumDepth {
                guard !store.recoveries.isEmpty else {
                    throw WrongValue(description: "nesting \(depth) deep was accepted")
                }
                return true
            }
            guard store.recoveries.isEmpty else {
                throw WrongValue(description: "nesting \(depth) deep, within the limit, was refused")
            }
            var value = PropertyListValue.integer(7)
            for _ in 0..<(depth - 1) { value = .array([value]) }
            guard store.object(forKey: "deep") == value else {
                throw WrongValue(description: "nesting \(depth) deep read wrong")
            }
            return false
        },
        generate: { generator, _, _ in
            // The top dictionary is level 1; `deep` adds the rest.
            let depth = Int.random(in: 2...(Bool.random(using: &generator) ? 300 : 20_000), using: &generator)
            if Bool.random(using: &generator) {
                let text =
                    "<plist><!--depth \(depth)--><dict><key>deep</key>" + String(repeating: "<array>", count: depth - 1)
                    + "<integer>7</integer>"
                    + String(repeating: "</array>", count: depth - 1) + "</dict></plist>"
                return Data(text.utf8)
            }
            var table = BinaryPropertyList.ObjectTable()
            let declared = table.add(.integer(Int64(depth)))  // The first object, at byte 8: see `declaredDepth`.
            var chain = table.add(.integer(7))
            for _ in 0..<(depth - 1) { chain = table.addArray([chain]) }
            let keys = [table.add(.string("deep")), table.add(.string("depth"))]
            let top = table.addDictionary([(keys[0], chain), (keys[1], declared)])
            return table.encoded(top: top)
        }),
    HostileFormat(
        name: "plist NFC/NFD twin keys", versionOffsets: [], make: { _ in Data() },
        feed: { data, root in
            let store = try openPlantedSuite(data, root: root)
            guard store.recoveries.isEmpty else { throw WrongValue(description: "a file of twin keys was refused") }
            try checkTwins(store)
            // Written back (another key set) and read again, every twin keeps its own value.
            try store.set(.bool(true), forKey: "written")
            try store.flush()
            let again = try openPlantedSuite(nil, root: root)
            try checkTwins(again)
            return false
        },
        generate: { generator, _, _ in
            let words = ["caf\u{E9}", "\u{C5}ngstr\u{F6}m", "na\u{EF}ve", "\u{1E69}", "\u{AC00}", "r\u{E9}sum\u{E9}"]
            var keys: [String] = []
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                let word = words.randomElement(using: &generator)! + String(Int.random(in: 0...3, using: &generator))
                keys += [word.precomposedStringWithCanonicalMapping, word.decomposedStringWithCanonicalMapping]
            }
            keys = Array(Set(keys.map { ExactString($0) })).sorted().map(\.string).shuffled(using: &generator)
            // Each key's value names its scalars, so a value read under the other spelling shows.
            let entries = keys.map { ($0, scalarNames($0)) } + [("count", "\(keys.count + 1)")]
            if Bool.random(using: &generator) {
                let body = entries.map { "<key>\($0.0)</key><string>\($0.1)</string>" }.joined()
                return Data("<plist version=\"1.0\"><dict>\(body)</dict></plist>".utf8)
            }
            var table = BinaryPropertyList.ObjectTable()
            let pairs = entries.map { (table.add(.string($0.0)), table.add(.string($0.1))) }
            let top = table.addDictionary(pairs)
            return table.encoded(top: top)
        }),
]

/// Plants `data` (or keeps the suite file there) as the standard suite and opens it, in bounded time.
func openPlantedSuite(_ data: Data?, root: String) throws -> DefaultsStore {
    if let data {
        try FileManager.default.createDirectory(atPath: root + "/defaults", withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: root + "/defaults/standard.plist"))
    }
    let started = Date()
    let store = try DefaultsStore(root: root, configuration: DefaultsConfiguration(watchesExternalChanges: false))
    let seconds = Date().timeIntervalSince(started)
    if seconds > 5 { throw WrongValue(description: "opening the suite took \(Int(seconds)) s") }
    return store
}

/// Whether the tree `Ak` = `fanOut` copies of `Ak-1`, `A0` = "boom" is within the default limits once expanded
/// (with the few bytes of the rest of the suite).
func isWithinLimits(fanOut: Int, levels: Int) -> Bool {
    var size = 7.0
    var nodes = 1.0
    for _ in 0..<levels {
        size = 3 + Double(fanOut) * (2 + size)
        nodes = 1 + Double(fanOut) * nodes
    }
    return size + 100 <= Double(PropertyListLimits.defaultMaximumExpandedSize)
        && nodes + 10 <= Double(PropertyListLimits.defaultMaximumNodeCount)
}

/// How deep a generated file says it nests (the top dictionary being level 1): in a comment of the XML, or in
/// the integer that is the first object of the binary file.
func declaredDepth(in data: Data) -> Int {
    let bytes = [UInt8](data)
    if bytes.starts(with: Array("<plist><!--depth ".utf8)) {
        return Int(String(decoding: bytes.dropFirst(17).prefix { $0 != UInt8(ascii: "-") }, as: UTF8.self)) ?? 0
    }
    let width = 1 << Int(bytes[8] & 0x0F)
    return Int(bytes[9..<(9 + width)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
}

func scalarNames(_ key: String) -> String {
    key.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
}

/// Every key's value is the list of its own scalars, and the count says how many keys there are.
func checkTwins(_ store: DefaultsStore) throws {
    let keys = store.allKeys.filter { $0 != "count" && $0 != "written" }
    guard case .string(let count)? = store.object(forKey: "count"), Int(count) == keys.count + 1 else {
        throw WrongValue(description: "twin keys merged: \(keys.count + 1) keys read")
    }
    for key in keys where store.object(forKey: key) != .string(scalarNames(key)) {
        throw WrongValue(description: "the key \(scalarNames(key)) read another spelling's value")
    }
}
