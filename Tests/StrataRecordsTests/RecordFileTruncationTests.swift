import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords
@testable import StrataSQLite

/// A store's file cut short by another process while a reader runs: SQLite documents that a memory-mapped
/// database then stops the reading process with `SIGBUS`. A store's connections read with `read` calls into their
/// page caches instead, so the reader gets typed errors (or goes on with the pages it holds) and is never killed.
@Suite("Records: a database file truncated under a running reader")
struct RecordFileTruncationTests {
    /// How many records the store holds: about 2.5 MB, many pages past every cut below.
    static let records = 2_000

    /// Where the file is cut: to nothing, to its first page, and to half its size.
    enum Cut: String, CaseIterable, CustomStringConvertible {
        case empty, firstPage, half
        var description: String { rawValue }

        func length(of size: UInt64) -> UInt64 {
            switch self {
            case .empty: 0
            case .firstPage: 4_096
            case .half: size / 2
            }
        }
    }

    /// The number of a `pass N …` line, or 0.
    static func pass(of line: String) -> Int {
        let words = line.split(separator: " ")
        return words.count > 1 && words[0] == "pass" ? Int(words[1]) ?? 0 : 0
    }

    /// Each cut under a reader with the default page cache, which may hold every page it needs and go on, and
    /// under one whose cache of 64 KiB holds few, so that it reads the cut file again and again.
    @Test(arguments: Cut.allCases, [nil, 64])
    func aReaderGetsTypedErrorsAndIsNeverKilled(_ cut: Cut, cacheKibibytes: Int?) throws {
        let directory = try TemporaryDirectory(prefix: "strata-truncation")
        let path = directory.appending("store.sqlite")
        try {
            // Closing the store checkpoints its write-ahead log: every record is then read from the main file.
            let store = try RecordStore(path: path)
            let items = try store.collection(BatchItem.self, named: "items")
            let payload = String(repeating: "p", count: 1_000)
            try items.insert(
                contentsOf: (0..<Self.records).map { BatchItem(id: "item-\($0)", batch: $0, payload: payload) })
        }()
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)
        #expect(size > 2_000_000)

        let stop = directory.appending("stop")
        let child = try TestExecutables.url(named: "strata-test-child")
        let reader = try ChildProcess(
            child, ["records-read-until", path, stop] + (cacheKibibytes.map { ["\($0)"] } ?? []))
        defer {
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            _ = reader.wait()
        }
        _ = try reader.waitForLine { $0.hasPrefix("pass 1 ") }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: cut.length(of: size))
        try handle.close()
        // Five whole passes over the cut file (a reader killed by a signal ends the wait early).
        let passCut = reader.lines.count
        _ = try? reader.waitForLine { Self.pass(of: $0) >= passCut + 6 }
        #expect(FileManager.default.createFile(atPath: stop, contents: nil))
        let result = reader.wait()

        let crash = result.standardError.split(separator: "\n").first { $0.contains("crashed") } ?? ""
        #expect(!result.wasSignalled, "the reader was killed by signal \(result.status): \(crash)")
        #expect(result.status == 0, "\(crash)")
        #expect(reader.lines.last == "stopped")
        // Each pass read every record, or failed with a typed error: none came back with records missing.
        let passes = reader.lines.filter { $0.hasPrefix("pass ") }
        let outcomes = Set(passes.map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") })
        #expect(passes.count >= passCut + 6)
        // A reader whose cache holds few pages reads the cut file, and is told.
        if cacheKibibytes != nil { #expect(outcomes.contains { $0.hasPrefix("error ") }, "\(outcomes)") }
        #expect(outcomes.isSubset(of: ["ok \(Self.records)", "error corrupt", "error io"]), "\(outcomes)")
    }
}
