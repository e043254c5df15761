import Foundation
import StrataArchiveFixtures
import StrataCore
import StrataFiles
import StrataLocalFiles
import StrataSystem

/// Hostile classes for zip and gzip archives: ZIP64 overflow fields, multi-member and trailing-garbage gzip,
/// duplicate names, file/folder clashes.
///
/// `generate` writes what a correct import must do to `<root>/expected` (whether it must be refused, and the
/// files it must store otherwise), computed here independently of the importer, and `feed` checks it: an
/// archive that must be refused yet is imported, a valid one refused, a wrong byte, or a refused import that
/// changed the store is a wrong value.
let archiveHostileClasses: [HostileFormat] = [
    HostileFormat(
        name: "zip ZIP64 overflow fields", versionOffsets: [], make: { _ in Data() },
        feed: { data, root in try feedZip(data, root) },
        generate: { generator, _, root in
            var entries = (0..<Int.random(in: 1...3, using: &generator)).map { index in
                var entry = ZipSkeleton.Entry(name: "entry-\(index).bin", content: randomBytes(&generator, 0...200))
                entry.zip64 = true
                entry.deflate = Bool.random(using: &generator)
                entry.dataDescriptor = Bool.random(using: &generator)
                return entry
            }
            var archive = ZipSkeleton(entries: [], zip64End: Bool.random(using: &generator))
            // At least one field gets a value near the top of the 63- or 64-bit range.
            let victim = Int.random(in: 0..<entries.count, using: &generator)
            switch Int.random(in: 0..<(archive.zip64End ? 6 : 3), using: &generator) {
            case 0:
                entries[victim].size = nearMaximum(&generator)
                if Bool.random(using: &generator) { entries[victim].compressedSize = 0 }
            case 1: entries[victim].compressedSize = nearMaximum(&generator)
            case 2: entries[victim].offset = nearMaximum(&generator)
            case 3: archive.count = nearMaximum(&generator)
            case 4: archive.directorySize = nearMaximum(&generator)
            default: archive.directoryOffset = nearMaximum(&generator)
            }
            archive.entries = entries
            try writeExpectation(root, refused: true, files: [])
            return Data(archive.bytes())
        }),
    HostileFormat(
        name: "gzip members and trailing garbage", versionOffsets: [], make: { _ in Data() },
        feed: { data, root in try feedGzip(data, root) },
        generate: { generator, _, root in
            var file = GzipSkeleton(
                members: (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                    GzipSkeleton.Member(content: randomBytes(&generator, 0...3000))
                })
            var refused = false
            switch Int.random(in: 0..<5, using: &generator) {
            case 0:
                // Garbage (or zero padding, or a lone magic number) after the last member.
                file.trailing =
                    [[0, 0, 0, 0], [0x1F], [0x1F, 0x8B], randomBytes(&generator, 1...40)].randomElement(
                        using: &generator)!
                refused = true
            case 1:
                file.members[Int.random(in: 0..<file.members.count, using: &generator)].crc = UInt32.random(
                    in: 0...UInt32.max, using: &generator)
                refused = true
            case 2:
                let member = Int.random(in: 0..<file.members.count, using: &generator)
                file.members[member].size =
                    UInt32(file.members[member].content.count)
                    &+ UInt32.random(
                        in: 1...UInt32.max, using: &generator)
                refused = true
            default:
                break
            }
            // A changed CRC can, once in 2^32, be the right one: the expectation follows the actual bytes.
            refused = refused && !file.isHonest
            try writeExpectation(root, refused: refused, files: [("out.bin", file.content)])
            return Data(file.bytes())
        }),
    HostileFormat(
        name: "zip duplicate names", versionOffsets: [], make: { _ in Data() },
        feed: { data, root in try feedZip(data, root) },
        generate: { generator, index, root in
            let names = (0..<Int.random(in: 2...6, using: &generator)).map { _ in randomName(&generator) }
            return try namedArchive(names, existing: [], root: root, index: index)
        }),
    HostileFormat(
        name: "zip file/folder clashes", versionOffsets: [], make: { _ in Data() },
        feed: { data, root in try feedZip(data, root) },
        generate: { generator, index, root in
            let existing = (0..<Int.random(in: 0...3, using: &generator)).map { _ in randomName(&generator, file: true)
            }
            let names = (0..<Int.random(in: 1...5, using: &generator)).map { _ in randomName(&generator) }
            return try namedArchive(names, existing: existing, root: root, index: index)
        }),
]

func randomBytes(_ generator: inout Seeded, _ range: ClosedRange<Int>) -> [UInt8] {
    (0..<Int.random(in: range, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

func nearMaximum(_ generator: inout Seeded) -> UInt64 {
    let top = Bool.random(using: &generator) ? UInt64.max : UInt64(Int.max)
    return top - UInt64.random(in: 0...4096, using: &generator)
}

/// A name from a small alphabet (so that duplicates and clashes are frequent), NFC and NFD twins included;
/// a folder entry (trailing `/`) unless `file`.
func randomName(_ generator: inout Seeded, file: Bool = false) -> String {
    let parts = ["a", "b", "caf\u{E9}", "cafe\u{301}", "A"]
    let depth = Int.random(in: 1...3, using: &generator)
    let name = (0..<depth).map { _ in parts.randomElement(using: &generator)! }.joined(separator: "/")
    return !file && Int.random(in: 0..<4, using: &generator) == 0 ? name + "/" : name
}

/// Writes an archive of `names` (files with distinct contents, folders empty) and what importing it into a store
/// holding the files `existing` must do: refused when two file names are identical scalar for scalar, or a file
/// is where another name (in the archive or the store) needs a folder.
func namedArchive(_ names: [String], existing: [String], root: String, index: Int) throws -> Data {
    func isFile(_ name: String) -> Bool { !name.hasSuffix("/") }
    func bare(_ name: String) -> [UInt8] { Array(name.utf8.dropLast(isFile(name) ? 0 : 1)) }
    func under(_ name: [UInt8], _ folder: [UInt8]) -> Bool { name.starts(with: folder + [UInt8(ascii: "/")]) }
    let files = names.filter(isFile).map(bare)
    let folders = names.filter { !isFile($0) }.map(bare)
    // The store's files, as they can exist together (a name that clashes with an earlier one is left out).
    var stored: [[UInt8]] = []
    for name in existing.map(bare) where !stored.contains(where: { $0 == name || under($0, name) || under(name, $0) }) {
        stored.append(name)
    }
    let existing = stored.map { String(decoding: $0, as: UTF8.self) }
    let duplicate = Set(files).count != files.count
    let clash =
        files.contains { file in
            files.contains { under($0, file) } || folders.contains { $0 == file || under($0, file) }
                || stored.contains { under($0, file) }
        }
        || stored.contains { file in
            files.contains { under($0, file) } || folders.contains { $0 == file || under($0, file) }
        }
    let entries = names.enumerated().map { offset, name in
        ZipSkeleton.Entry(name: name, content: isFile(name) ? Array("#\(index).\(offset) \(name)".utf8) : [])
    }
    try writeExpectation(
        root, refused: duplicate || clash,
        files: entries.filter { isFile($0.name) }.map { ($0.name, $0.content) }, existing: existing)
    return Data(ZipSkeleton(entries: entries).bytes())
}

/// `<root>/expected`: a line `refused` or `stored`, the store's files before, then the files to find after, as
/// hex (names keep their exact scalars through it).
func writeExpectation(_ root: String, refused: Bool, files: [(String, [UInt8])], existing: [String] = []) throws {
    func hex(_ bytes: some Sequence<UInt8>) -> String { Hex.encode(bytes) }
    var lines = [refused ? "refused" : "stored", existing.map { hex($0.utf8) }.joined(separator: " ")]
    lines += files.map { hex($0.0.utf8) + " " + hex($0.1) }
    try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: root + "/expected"))
}

func readExpectation(_ root: String) throws -> (refused: Bool, existing: [String], files: [(String, Data)]) {
    func unhex(_ text: Substring) -> [UInt8] { Hex.decode(String(text)) ?? [] }
    let lines = String(decoding: try Data(contentsOf: URL(fileURLWithPath: root + "/expected")), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false)
    let existing = lines[1].split(separator: " ").map { String(decoding: unhex($0), as: UTF8.self) }
    let files = lines.dropFirst(2).map { line in
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        return (String(decoding: unhex(parts[0]), as: UTF8.self), Data(unhex(parts[1])))
    }
    return (lines[0] == "refused", existing, files)
}

/// A fresh store holding `existing` (each file's content is its name), and a snapshot of it.
func hostileTarget(_ root: String, _ existing: [String]) throws -> (FileStore, [ExactString: Data]) {
    let store = try FileStore(
        root: root + "/target-\(UInt32.random(in: 0...UInt32.max))",
        configuration: FilesConfiguration(durability: .atomicOnly))
    for key in existing { try store.write(Data(key.utf8), to: key) }
    return (store, try snapshot(store))
}

func snapshot(_ store: FileStore) throws -> [ExactString: Data] {
    var files: [ExactString: Data] = [:]
    for key in try store.list() { files[ExactString(key)] = try store.read(key) }
    return files
}

func feedZip(_ data: Data, _ root: String) throws -> Bool {
    let expected = try readExpectation(root)
    let (store, before) = try hostileTarget(root, expected.existing)
    defer { try? FileManager.default.removeItem(atPath: LocalPath(store.engine.location).parent.string) }
    try data.write(to: URL(fileURLWithPath: root + "/hostile.zip"))
    do {
        try store.importZip(from: root + "/hostile.zip")
    } catch let error as StorageError {
        if try snapshot(store) != before { throw WrongValue(description: "a refused import changed the store") }
        if !expected.refused { throw WrongValue(description: "a valid archive was refused: \(error)") }
        return true
    }
    if expected.refused { throw WrongValue(description: "an archive that must be refused was imported") }
    for (key, content) in expected.files where try store.read(key) != content {
        throw WrongValue(description: "an imported file has the wrong content")
    }
    return false
}

func feedGzip(_ data: Data, _ root: String) throws -> Bool {
    let expected = try readExpectation(root)
    let (store, before) = try hostileTarget(root, [])
    defer { try? FileManager.default.removeItem(atPath: LocalPath(store.engine.location).parent.string) }
    try data.write(to: URL(fileURLWithPath: root + "/hostile.gz"))
    do {
        try store.importGzip(from: root + "/hostile.gz", to: "out.bin")
    } catch let error as StorageError {
        if try snapshot(store) != before { throw WrongValue(description: "a refused import changed the store") }
        if !expected.refused { throw WrongValue(description: "a valid gzip file was refused: \(error)") }
        return true
    }
    if expected.refused { throw WrongValue(description: "a gzip file that must be refused was imported") }
    if try store.read("out.bin") != expected.files[0].1 {
        throw WrongValue(description: "the members decompressed to different bytes")
    }
    return false
}
