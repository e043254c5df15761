import Foundation
import StrataCore

extension BackendConformance {
    static func expect(
        _ condition: Bool, _ check: String, _ message: @autoclosure () throws -> String
    ) throws {
        if !condition { throw ConformanceFailure(check: check, message: (try? message()) ?? "(message unavailable)") }
    }

    static func bytes(_ count: Int, seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            for index in buffer.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                buffer[index] = UInt8(truncatingIfNeeded: state)
            }
        }
        return data
    }

    @Sendable static func roundTrip(_ backend: any StorageBackend, _: Options) async throws {
        let check = "round-trip"
        let value = Data("hello, strata".utf8)
        try backend.put(value, for: "greeting")
        try expect(try backend.data(for: "greeting") == value, check, "the value read back differs from the value put")
        try expect(try backend.contains("greeting"), check, "contains is false right after put")
        try expect(try backend.keys().contains("greeting"), check, "keys() does not list the key just put")
        let metadata = try backend.metadata(for: "greeting")
        try expect(
            metadata?.size == value.count, check,
            "metadata size is \(String(describing: metadata?.size)), expected \(value.count)")
        try expect(metadata?.key == "greeting", check, "metadata names key \(String(describing: metadata?.key))")
    }

    @Sendable static func overwrite(_ backend: any StorageBackend, _: Options) async throws {
        let check = "overwrite"
        try backend.put(Data("first value, longer".utf8), for: "k")
        try backend.put(Data("second".utf8), for: "k")
        try expect(try backend.data(for: "k") == Data("second".utf8), check, "the second put did not replace the first")
        try expect(try backend.metadata(for: "k")?.size == 6, check, "metadata size was not updated by the second put")
        try expect(try backend.keys().filter { $0 == "k" }.count == 1, check, "keys() lists the key more than once")
    }

    @Sendable static func delete(_ backend: any StorageBackend, _: Options) async throws {
        try deletion(backend, check: "delete") { try backend.delete($0) }
    }

    @Sendable static func secureDelete(_ backend: any StorageBackend, _: Options) async throws {
        try deletion(backend, check: "secure-delete") { try backend.deleteSecurely($0) }
    }

    /// What every way of deleting must do: remove one key's value, say whether there was one, leave the others.
    static func deletion(_ backend: any StorageBackend, check: String, _ remove: (String) throws -> Bool) throws {
        try backend.put(Data("x".utf8), for: "gone")
        try backend.put(Data("y".utf8), for: "kept")
        try expect(try remove("gone"), check, "delete of a stored key returned false")
        try expect(try backend.data(for: "gone") == nil, check, "the value is still readable after delete")
        try expect(!(try backend.contains("gone")), check, "contains is true after delete")
        try expect(!(try backend.keys().contains("gone")), check, "keys() still lists a deleted key")
        try expect(!(try remove("gone")), check, "a second delete returned true")
        try expect(try backend.data(for: "kept") == Data("y".utf8), check, "deleting one key disturbed another")
    }

    @Sendable static func missingKey(_ backend: any StorageBackend, _: Options) async throws {
        let check = "missing-key"
        try expect(try backend.data(for: "never-stored") == nil, check, "an absent key did not read as nil")
        try expect(!(try backend.contains("never-stored")), check, "contains is true for an absent key")
        try expect(try backend.metadata(for: "never-stored") == nil, check, "metadata is not nil for an absent key")
        try expect(!(try backend.delete("never-stored")), check, "delete of an absent key returned true")
        try expect(try backend.keys().isEmpty, check, "a fresh backend lists keys: \(try backend.keys())")
    }

    @Sendable static func emptyValue(_ backend: any StorageBackend, _: Options) async throws {
        let check = "empty-value"
        try backend.put(Data(), for: "empty")
        let read = try backend.data(for: "empty")
        try expect(read != nil, check, "an empty value read back as nil (absent)")
        try expect(read?.isEmpty == true, check, "an empty value read back as \(read?.count ?? -1) bytes")
        try expect(try backend.contains("empty"), check, "contains is false for an empty value")
    }

    @Sendable static func binaryValue(_ backend: any StorageBackend, _: Options) async throws {
        let check = "binary-value"
        let value = Data((0...255).map { UInt8($0) } + (0...255).reversed().map { UInt8($0) })
        try backend.put(value, for: "binary")
        try expect(try backend.data(for: "binary") == value, check, "binary content was altered")
    }

    @Sendable static func largeValue(_ backend: any StorageBackend, _ options: Options) async throws {
        let check = "large-value"
        let value = bytes(options.largeValueSize, seed: 7)
        try backend.put(value, for: "large")
        let read = try backend.data(for: "large")
        try expect(
            read == value, check,
            "a \(options.largeValueSize)-byte value read back as \(read?.count ?? -1) differing bytes")
        try expect(
            try backend.metadata(for: "large")?.size == value.count, check, "metadata size is wrong for a large value")
    }

    @Sendable static func manyKeys(_ backend: any StorageBackend, _ options: Options) async throws {
        let check = "many-keys"
        let keys = (0..<options.manyKeysCount).map { String(format: "item-%05d", $0) }
        for (index, key) in keys.enumerated() { try backend.put(Data("value \(index)".utf8), for: key) }
        let listed = try backend.keys()
        try expect(
            listed == keys.sorted(), check, "keys() returned \(listed.count) keys, not the \(keys.count) put, sorted")
        for (index, key) in keys.enumerated() {
            try expect(try backend.data(for: key) == Data("value \(index)".utf8), check, "key \(key) read back wrong")
        }
    }

    @Sendable static func nestedKeys(_ backend: any StorageBackend, _: Options) async throws {
        let check = "nested-and-unicode-keys"
        let keys = ["exports/2026/report.pdf", "café/naïve résumé.txt", "日本語/キー", "with space", "dots.in.name"]
        for key in keys { try backend.put(Data(key.utf8), for: key) }
        for key in keys {
            try expect(try backend.data(for: key) == Data(key.utf8), check, "key \(key) did not round-trip")
        }
        try expect(Set(try backend.keys()) == Set(keys), check, "keys() returned \(try backend.keys())")
    }

    @Sendable static func exactUnicodeKeys(_ backend: any StorageBackend, _: Options) async throws {
        let check = "exact-unicode-keys"
        let composed = "notes/caf\u{E9}"  // é as one scalar (NFC)
        let decomposed = "notes/cafe\u{301}"  // e + COMBINING ACUTE ACCENT (NFD)
        try backend.put(Data("composed".utf8), for: composed)
        try backend.put(Data("decomposed".utf8), for: decomposed)
        try expect(
            try backend.data(for: composed) == Data("composed".utf8), check,
            "the NFC key reads \(String(describing: try backend.data(for: composed))), merged with its NFD twin")
        try expect(
            try backend.data(for: decomposed) == Data("decomposed".utf8), check, "the NFD key lost its own value")
        let listed = Set(try backend.keys().map { ExactString($0) })
        try expect(
            listed == [ExactString(composed), ExactString(decomposed)], check,
            "keys() lists \(listed.map { Array($0.string.unicodeScalars) }), not both spellings exactly")
        try expect(try backend.delete(decomposed), check, "delete of the NFD key returned false")
        try expect(
            try backend.data(for: composed) == Data("composed".utf8), check, "deleting the NFD key removed the NFC one")
        try expect(
            try backend.keys().map { Array($0.unicodeScalars) } == [Array(composed.unicodeScalars)], check,
            "after deleting the NFD key, keys() lists \(try backend.keys())")
    }

    @Sendable static func invalidKeys(_ backend: any StorageBackend, _: Options) async throws {
        let check = "invalid-keys"
        let disguised = [
            "escape\u{1B}[2J", "c1\u{9B}31m", "txt\u{202E}fdp.exe", "isolate\u{2067}x", "line\u{2028}break",
        ]
        for key in ["", "../escape", "/absolute", "a/../../b", "nul\0byte", "a//b"] + disguised {
            do {
                try backend.put(Data("bad".utf8), for: key)
                throw ConformanceFailure(check: check, message: "put accepted the hostile key \(key.debugDescription)")
            } catch let error as StorageError {
                try expect(
                    error.code == .invalidKey, check,
                    "the hostile key \(key.debugDescription) threw \(error.code), not invalid-key")
            }
        }
        try expect(try backend.keys().isEmpty, check, "a refused key left something stored: \(try backend.keys())")
    }

    @Sendable static func concurrentUse(_ backend: any StorageBackend, _ options: Options) async throws {
        let check = "concurrent-use"
        let shared = (0..<4).map { bytes(4096, seed: UInt64($0 + 100)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<options.concurrentTasks {
                group.addTask {
                    for write in 0..<options.writesPerTask {
                        let key = "task-\(task)/item-\(write)"
                        try backend.put(Data("\(task):\(write)".utf8), for: key)
                        try backend.put(shared[(task + write) % shared.count], for: "shared")
                        let mine = try backend.data(for: key)
                        try expect(
                            mine == Data("\(task):\(write)".utf8), check, "task \(task) lost its own write \(key)")
                        if let seen = try backend.data(for: "shared") {
                            try expect(shared.contains(seen), check, "a reader saw a torn value under 'shared'")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let expected = options.concurrentTasks * options.writesPerTask + 1
        let count = try backend.keys().count
        try expect(count == expected, check, "\(count) keys after the concurrent writes, expected \(expected)")
        let final = try backend.data(for: "shared")
        try expect(final.map(shared.contains) == true, check, "the shared key ended torn or missing")
    }
}
