import Foundation
import StrataCore

extension RecordCollection {
    /// Writes the collection as JSON Lines (one record per line, in id order), streamed in batches, replacing
    /// `path` atomically.
    /// - Returns: How many records were written.
    @discardableResult
    public func exportJSONLines(to path: String) throws -> Int {
        var written = 0
        try AtomicFile.write(to: path, permissions: 0o600) { writer in
            var after: String? = nil
            while true {
                // Batches by id keep memory flat and each read short.
                let batch: [(String, [UInt8])] = try store.read { session in
                    var rows: [(String, [UInt8])] = []
                    try session.page(name, after: after, limit: 1000) { rows.append(($0, [UInt8]($1))) }
                    return rows
                }
                guard let last = batch.last else { break }
                var chunk = [UInt8]()
                for (_, body) in batch {
                    chunk += body
                    chunk.append(0x0A)
                }
                try chunk.withUnsafeBytes { try writer.write($0) }
                written += batch.count
                after = last.0
            }
        }
        return written
    }

    /// Imports JSON Lines: every line is checked (valid JSON, decodes as a record), and only if all are good are
    /// they stored, in one transaction.
    ///
    /// Each line is decoded once: the records are written as they are checked, and the transaction is rolled
    /// back if a later line is bad. Bad lines are reported before any error of the store.
    /// - Parameters:
    ///   - path: The file; empty lines are skipped.
    ///   - replacingExisting: Whether a record whose id exists is replaced (upsert) or makes the import fail.
    ///     The default is `false`.
    /// - Returns: How many records were stored.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` listing the bad lines by number (nothing is stored),
    ///   or a database error (the transaction is rolled back: nothing is stored).
    @discardableResult
    public func importJSONLines(from path: String, replacingExisting: Bool = false) throws -> Int {
        try store.write { transaction in
            // The closure may run again (a transaction retried after a conflict): everything starts afresh.
            var problems: [String] = []
            var badCount = 0
            var stored = 0
            var refused: (any Error)?  // the store's error for a good line, reported if no line is bad
            var seen = Set<ExactString>()  // Ids are store keys, kept exactly: two spellings are two ids.
            let bound = transaction(self)
            try JSONLinesReader.forEachLine(in: path) { number, line in
                guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { return }
                let record: R
                do {
                    record = try line.withUnsafeBytes { try FastJSONDecoder.decode(R.self, from: $0) }
                    if !seen.insert(ExactString(record.id.recordKey)).inserted {
                        throw StorageError(
                            .invalidArgument, "the id '\(record.id.recordKey)' appears twice in the file",
                            tier: .records)
                    }
                } catch {
                    badCount += 1
                    if problems.count < 20 { problems.append("line \(number): \(Self.explain(error))") }
                    return
                }
                // Once a line is bad or a write failed, the rest is only checked.
                guard badCount == 0, refused == nil else { return }
                do {
                    if replacingExisting { try bound.upsert(record) } else { try bound.insert(record) }
                    stored += 1
                } catch {
                    refused = error
                }
            }
            guard badCount == 0 else {
                throw StorageError(
                    .invalidArgument,
                    "\(badCount) bad line(s), nothing imported: " + problems.joined(separator: "; ")
                        + (badCount > problems.count ? "; …" : ""),
                    tier: .records, path: path, collection: name, operation: "import")
            }
            if let refused { throw refused }
            return stored
        }
    }

    static func explain(_ error: any Error) -> String {
        switch error {
        case let parse as JSONParseError: return "not JSON (\(parse))"
        case let decoding as DecodingError: return RecordCoder.describe(decoding)
        case let storage as StorageError: return storage.message
        default: return "\(error)"
        }
    }
}

extension StorageError {
    init(_ code: Code, _ message: String, tier: Tier, path: String, collection: String, operation: String) {
        self.init(code, message, tier: tier, path: path)
        self.collection = collection
        self.operation = operation
    }
}

/// Reads a file line by line in 64 KiB chunks, so memory stays flat whatever its size.
enum JSONLinesReader {
    static let maximumLineLength = 16 << 20

    static func forEachLine(in path: String, _ body: (Int, [UInt8]) throws -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StorageError(.notFound, "cannot open the file to import", tier: .records, path: path)
        }
        defer { try? handle.close() }
        var pending = [UInt8]()
        var number = 0
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 64 << 10) ?? Data()
            } catch {
                throw StorageError(.io, "cannot read the file to import: \(error)", tier: .records, path: path)
            }
            if chunk.isEmpty { break }
            pending += chunk
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                number += 1
                try body(number, Array(pending[start..<newline]))
                start = newline + 1
            }
            pending.removeFirst(start)
            guard pending.count <= maximumLineLength else {
                throw StorageError(
                    .tooLarge, "line \(number + 1) is longer than \(maximumLineLength) bytes", tier: .records,
                    path: path)
            }
        }
        if !pending.isEmpty {
            number += 1
            try body(number, pending)
        }
    }
}
