import Foundation
import StrataCore
package import StrataRecords
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A PostgreSQL record store's export (``PostgresCapture``), read back from the folder a restore wrote it into
/// (`records/postgres` of the staged store): the description, the key-value table and each collection, line by
/// line, so that memory stays bounded by one line.
///
/// Everything is checked before it reaches a database: the format and its version, every collection name (it
/// becomes a table name), every line (valid JSON of the shape the capture writes, a record's body a JSON object).
/// A damaged or forged export is `.corrupt`, naming the file in the capture and the line.
package struct PostgresExport {
    /// The export's folder.
    let folder: DirectoryHandle
    let description: PostgresExportDescription
    /// The longest line read: a record's body or a value, as JSON text.
    static let maximumLineLength = 64 << 20

    /// Reads and checks `store.json` in `folder`.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` for a damaged description or a collection without its
    ///   file, `.unsupportedVersion` for an export newer than this code.
    package init(folder: DirectoryHandle) throws {
        self.folder = folder
        let data = try AtomicFile.read(in: folder, name: "store.json", maximumSize: 16 << 20) ?? Data()
        let description: PostgresExportDescription
        do {
            description = try JSONDecoder().decode(PostgresExportDescription.self, from: data)
        } catch {
            throw Self.corrupt("store.json", "the description does not decode: \(error)")
        }
        guard description.format == PostgresCapture.format else {
            throw Self.corrupt("store.json", "the description is not of the format \(PostgresCapture.format)")
        }
        guard description.version <= PostgresCapture.formatVersion else {
            throw StorageError(
                .unsupportedVersion,
                "the export is of format \(description.version); this Strata reads up to "
                    + "\(PostgresCapture.formatVersion)", tier: .records, path: Self.capturePath("store.json"),
                recovery: "Restore it with a newer Strata")
        }
        var seen = Set<ExactString>()
        for collection in description.collections {
            guard RecordStore.isValidName(collection.name), seen.insert(ExactString(collection.name)).inserted else {
                throw Self.corrupt("store.json", "a collection name is invalid or named twice")
            }
        }
        guard Int(description.meta["schema_version"] ?? "0") != nil else {
            throw Self.corrupt("store.json", "the schema version is not a number")
        }
        self.description = description
    }

    /// The collections, in the export's order.
    package var collections: [String] { description.collections.map(\.name) }

    /// The app's schema version (of its migrations) when the store was captured.
    package var schemaVersion: Int { Int(description.meta["schema_version"] ?? "0") ?? 0 }

    /// The Strata indexes of a collection, read back from their definitions: each one whose name is the name
    /// Strata gives an index on the field its definition reads (others, made by hand, are not restored).
    package func indexes(of collection: String) -> [Index] { Self.indexes(of: collection, in: description) }

    /// The Strata indexes of a collection of `description`.
    static func indexes(of collection: String, in description: PostgresExportDescription) -> [Index] {
        guard let described = description.collections.first(where: { $0.name == collection }) else { return [] }
        return described.indexes.sorted { $0.key < $1.key }.compactMap { name, definition in
            index(named: name, definition: definition, in: collection, keys: described.keys ?? [:])
        }
    }

    /// The Strata index that an index of a collection's table is, read back from its name and its definition (as
    /// `pg_indexes.indexdef` gives it), or `nil` for one Strata would not have made by that name. `keys` maps the
    /// table's key columns to their fields' paths.
    static func index(named name: String, definition: String, in collection: String, keys: [String: String]) -> Index? {
        // `… USING btree (NULLIF((body -> 'a'::text) -> 'b'::text, 'null'::jsonb))`: the quoted names cast
        // to text are the field's components; `… USING btree (k__a__b) [WHERE …]`: the key column's field.
        let pieces = definition.split(separator: "'", omittingEmptySubsequences: false)
        var components: [String] = []
        for index in stride(from: 1, to: pieces.count - 1, by: 2) where pieces[index + 1].hasPrefix("::text") {
            components.append(String(pieces[index]))
        }
        if let (_, path) = keys.first(where: { definition.contains("btree (\($0.key))") }) {
            components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
        guard !components.isEmpty, components.allSatisfy(RecordStore.isValidName) else { return nil }
        let field = Field(components.joined(separator: "."))
        let index: Index = definition.hasPrefix("CREATE UNIQUE ") ? .unique(field) : .field(field)
        // The server folds unquoted names to lower case.
        return index.name(in: collection).lowercased() == name.lowercased() ? index : nil
    }

    /// Calls `body` with each value of the key-value table: its key, its bytes and its modification time.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming the line, or what `body` throws.
    package func forEachValue(_ body: (String, [UInt8], Double) throws -> Void) throws {
        try forEachLine(in: "kv.jsonl") { number, line in
            let value = try? line.withUnsafeBytes { bytes throws(JSONParseError) in try JSONValue.parse(bytes) }
            guard case .string(let key)? = value?["key"], case .string(let hex)? = value?["value"],
                let bytes = Hex.decode(hex), let modified = value?["modified"].flatMap(Self.number)
            else {
                throw Self.corrupt("kv.jsonl", "line \(number) is not a value of the key-value table", line: number)
            }
            try body(key, bytes, modified)
        }
    }

    /// Calls `body` with each record of `collection`: its id and its JSON body.
    /// - Parameter checksBodies: Whether to parse each body and check it is a JSON object (a second pass over
    ///   files already checked, whose bodies a server parses anyway, skips it). The default is `true`.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming the line, or what `body` throws.
    package func forEachRecord(
        in collection: String, checksBodies: Bool = true, _ body: (String, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let name = "c/\(collection).jsonl"
        try forEachLine(in: name) { number, line in
            try line.withUnsafeBytes { bytes in
                guard let (id, range) = Self.splitRecord(bytes),
                    !checksBodies || Self.isObject(UnsafeRawBufferPointer(rebasing: bytes[range]))
                else {
                    throw Self.corrupt(
                        name, "line \(number) is not a record with an id and a JSON object", line: number)
                }
                try body(id, UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
        }
    }

    /// `{"id" : <string>, "body" : <value>}`, as `json_build_object` writes it: the id, and where the body's text is.
    static func splitRecord(_ bytes: UnsafeRawBufferPointer) -> (String, Range<Int>)? {
        var at = 0
        func skipSpace() { while at < bytes.count, [0x20, 0x09, 0x0D].contains(bytes[at]) { at += 1 } }
        func expect(_ text: String) -> Bool {
            skipSpace()
            for byte in text.utf8 {
                guard at < bytes.count, bytes[at] == byte else { return false }
                at += 1
            }
            return true
        }
        guard expect("{"), expect("\"id\""), expect(":") else { return nil }
        skipSpace()
        let idStart = at
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
        at += 1
        while at < bytes.count, bytes[at] != UInt8(ascii: "\"") { at += bytes[at] == UInt8(ascii: "\\") ? 2 : 1 }
        guard at < bytes.count else { return nil }
        at += 1
        guard
            case .string(let id)? = try? JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[idStart..<at])),
            expect(","), expect("\"body\""), expect(":")
        else { return nil }
        skipSpace()
        var end = bytes.count
        while end > at, [0x20, 0x09, 0x0D].contains(bytes[end - 1]) { end -= 1 }
        guard end > at, bytes[end - 1] == UInt8(ascii: "}") else { return nil }
        end -= 1
        while end > at, [0x20, 0x09, 0x0D].contains(bytes[end - 1]) { end -= 1 }
        return end > at ? (id, at..<end) : nil
    }

    static func isObject(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if case .object? = try? JSONValue.parse(bytes) { return true }
        return false
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let integer): Double(integer)
        case .unsignedInteger(let integer): Double(integer)
        case .number(let number): number
        default: nil
        }
    }

    /// Calls `body` with each line of a file of the export (numbered from 1; empty lines skipped), reading 64 KiB
    /// at a time.
    private func forEachLine(in name: String, _ body: (Int, [UInt8]) throws -> Void) throws {
        let components = name.split(separator: "/").map(String.init)
        var directory = folder
        for component in components.dropLast() {
            guard let next = try directory.openDirectory(component, create: false) else {
                throw Self.corrupt(name, "the export lacks this file")
            }
            directory = next
        }
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try directory.openRegularFile(components.last!).fd
        } catch let error where error.code == ENOENT {
            throw Self.corrupt(name, "the export lacks this file")
        } catch {
            throw error.storageError("cannot open a file of the export", tier: .records, path: Self.capturePath(name))
        }
        defer { Sys.close(fd) }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var number = 0
        var ended = false
        while !ended {
            let count: Int
            do throws(Errno) {
                count = try Sys.read(fd, into: &chunk)
            } catch {
                throw error.storageError(
                    "cannot read a file of the export", tier: .records, path: Self.capturePath(name))
            }
            ended = count == 0
            pending += chunk[..<count]
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                number += 1
                if newline > start { try body(number, Array(pending[start..<newline])) }
                start = newline + 1
            }
            pending.removeFirst(start)
            if ended && !pending.isEmpty {
                number += 1
                try body(number, pending)
                pending = []
            }
            guard pending.count <= Self.maximumLineLength else {
                throw Self.corrupt(name, "line \(number + 1) is longer than \(Self.maximumLineLength) bytes")
            }
        }
    }

    /// The path of a file of the export in the capture.
    static func capturePath(_ name: String) -> String { PostgresCapture.folder + "/" + name }

    static func corrupt(_ name: String, _ why: String, line: Int? = nil) -> StorageError {
        var error = StorageError(
            .corrupt, "the PostgreSQL export in the capture is damaged: \(why)", tier: .records,
            path: capturePath(name), recovery: "The snapshot is damaged or was made by hand; restore another one")
        error.line = line
        return error
    }
}
