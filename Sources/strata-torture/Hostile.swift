import Foundation
import StrataCore
import StrataDefaults
import StrataFiles
import StrataLocalFiles
import StrataRecords
import StrataSQLite
import StrataSecrets
import StrataSystem
import StrataTestSupport

/// A format we read: how to make a valid sample, where its version bytes are, and how to feed it a damaged copy.
/// `feed` returns true when the damaged input was refused with a typed error, false when it was read (then it
/// must have read correctly: a wrong value throws `WrongValue`).
struct HostileFormat {
    var name: String
    var versionOffsets: [Int]
    var make: @Sendable (String) throws -> Data
    var feed: @Sendable (Data, String) throws -> Bool
    /// For a class of inputs built hostile on purpose (overflowing ZIP64 fields, plist reference bombs, ...):
    /// makes input number `index` of the class from the seeded generator, instead of damaging `make`'s sample.
    /// `make` still runs once first, to prepare whatever the class needs under the root.
    var generate: (@Sendable (inout Seeded, Int, String) throws -> Data)? = nil
}

/// Every hostile row of the run: damaged copies of each format, then the hostile classes of each reader
/// (each family in its own `Hostile+Family.swift`).
let allHostileFormats: [HostileFormat] =
    hostileFormats + archiveHostileClasses + plistHostileClasses + recordsHostileClasses

struct WrongValue: Error, CustomStringConvertible {
    var description: String
}

let hostileFormats: [HostileFormat] = [
    HostileFormat(
        name: "plist suite", versionOffsets: [6, 7],
        make: { _ in
            PropertyListFormat.binary.encode([
                "theme": .string("dark"), "count": .integer(42), "list": .array([.bool(true), .real(1.5)]),
            ])
        },
        feed: { data, root in
            try FileManager.default.createDirectory(atPath: root + "/defaults", withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: root + "/defaults/standard.plist"))
            do {
                let store = try DefaultsStore(
                    root: root, configuration: DefaultsConfiguration(watchesExternalChanges: false))
                return !store.recoveries.isEmpty
            } catch is StorageError {
                return true
            }
        }),
    HostileFormat(
        name: "keyring", versionOffsets: [],
        make: { root in
            _ = try SecretStore(paths: StoragePaths(root: root), unlockingWith: tortureKey)
            return try Data(contentsOf: URL(fileURLWithPath: root + "/secrets/default/keyring.json"))
        },
        feed: { data, root in
            try data.write(to: URL(fileURLWithPath: root + "/secrets/default/keyring.json"))
            do {
                _ = try SecretStore(paths: StoragePaths(root: root), unlockingWith: tortureKey)
                return false
            } catch is StorageError {
                return true
            }
        }),
    HostileFormat(
        name: "sealed item", versionOffsets: [8],
        make: { root in
            // In a file of its own (a small item lives in the manifest: the next row).
            let store = try SecretStore(
                paths: StoragePaths(root: root), unlockingWith: tortureKey,
                configuration: SecretsConfiguration(inlineItemLimit: 0))
            try store.set("the secret", service: "s", account: "a")
            let folder = root + "/secrets/default"
            let item = try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".item") }!
            try FileManager.default.moveItem(atPath: folder + "/" + item, toPath: root + "/item-name-" + item)
            return try Data(contentsOf: URL(fileURLWithPath: root + "/item-name-" + item))
        },
        feed: { data, root in
            let folder = root + "/secrets/default"
            let name = try FileManager.default.contentsOfDirectory(atPath: root).first { $0.hasPrefix("item-name-") }!
            try data.write(to: URL(fileURLWithPath: folder + "/" + name.dropFirst("item-name-".count)))
            do {
                let value = try SecretStore(paths: StoragePaths(root: root), unlockingWith: tortureKey).get(
                    service: "s", account: "a")
                if value?.stringValue != "the secret" {
                    throw WrongValue(description: "read \(value?.stringValue ?? "nothing")")
                }
                return false
            } catch is StorageError {
                return true
            }
        }),
    HostileFormat(
        name: "item manifest with an item inside", versionOffsets: [8],
        make: { root in
            let store = try SecretStore(paths: StoragePaths(root: root), unlockingWith: tortureKey)
            try store.set("the secret", service: "s", account: "a")
            return try Data(contentsOf: URL(fileURLWithPath: root + "/secrets/default/items.manifest"))
        },
        feed: { data, root in
            try data.write(to: URL(fileURLWithPath: root + "/secrets/default/items.manifest"))
            do {
                let store = try SecretStore(paths: StoragePaths(root: root), unlockingWith: tortureKey)
                let value = try store.get(service: "s", account: "a")
                _ = try store.items()
                if value?.stringValue != "the secret" {
                    throw WrongValue(description: "read \(value?.stringValue ?? "nothing")")
                }
                return false
            } catch is StorageError {
                return true
            }
        }),
    HostileFormat(
        name: "SQLite store", versionOffsets: [18, 19, 60, 61, 62, 63],
        make: { root in
            do {
                let store = try RecordStore(path: root + "/seed.sqlite")
                try store.collection(BatchItem.self, named: "items").insert(
                    contentsOf: (0..<40).map { BatchItem(id: "\($0)", batch: $0, payload: "p\($0)") })
                try store.withWriterCheckpoint()
            }
            return try Data(contentsOf: URL(fileURLWithPath: root + "/seed.sqlite"))
        },
        feed: { data, root in
            let path = root + "/damaged-\(UInt32.random(in: 0...UInt32.max)).sqlite"
            try data.write(to: URL(fileURLWithPath: path))
            defer {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            do {
                let store = try RecordStore(path: path)
                let problems = try store.verify()
                _ = try store.collection(BatchItem.self, named: "items").fetch()
                return !problems.isEmpty
            } catch is StorageError {
                return true
            }
        }),
    HostileFormat(
        name: "zip archive", versionOffsets: [4, 5],
        make: { root in
            let store = try FileStore(
                root: root + "/source", configuration: FilesConfiguration(durability: .atomicOnly))
            for index in 0..<5 {
                try store.write(Data(String(repeating: "file \(index) ", count: 200).utf8), to: "d/\(index).txt")
            }
            try store.write(Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 97) }), to: "d/binary.bin")
            try store.exportZip(["d"], to: root + "/seed.zip")
            return try Data(contentsOf: URL(fileURLWithPath: root + "/seed.zip"))
        },
        feed: { data, root in
            try data.write(to: URL(fileURLWithPath: root + "/damaged.zip"))
            let target = try FileStore(
                root: root + "/target-\(UInt32.random(in: 0...UInt32.max))",
                configuration: FilesConfiguration(durability: .atomicOnly))
            defer {
                try? FileManager.default.removeItem(
                    atPath: LocalPath(target.engine.location).parent.string)
            }
            do {
                _ = try target.importZip(from: root + "/damaged.zip")
                return false
            } catch is StorageError {
                if try !target.list().isEmpty { throw WrongValue(description: "a failed import left files behind") }
                return true
            }
        }),
    HostileFormat(
        name: "gzip file", versionOffsets: [2, 3],
        make: { root in
            let store = try FileStore(
                root: root + "/source", configuration: FilesConfiguration(durability: .atomicOnly))
            try store.write(Data(String(repeating: "gzip torture ", count: 3000).utf8), to: "g.txt")
            try store.exportGzip("g.txt", to: root + "/seed.gz")
            return try Data(contentsOf: URL(fileURLWithPath: root + "/seed.gz"))
        },
        feed: { data, root in
            try data.write(to: URL(fileURLWithPath: root + "/damaged.gz"))
            let target = try FileStore(
                root: root + "/gtarget", configuration: FilesConfiguration(durability: .atomicOnly))
            do {
                try target.importGzip(from: root + "/damaged.gz", to: "out.txt")
                let back = try target.read("out.txt")
                try target.delete("out.txt")
                if back != Data(String(repeating: "gzip torture ", count: 3000).utf8) {
                    throw WrongValue(description: "a damaged gzip file decompressed to different bytes")
                }
                return false
            } catch is StorageError {
                if try target.exists("out.txt") { throw WrongValue(description: "a failed import left the file") }
                return true
            }
        }),
    HostileFormat(
        name: "JSON Lines", versionOffsets: [],
        make: { _ in
            Data((0..<20).map { #"{"id":"\#($0)","batch":\#($0),"payload":"p\#($0)"}"# }.joined(separator: "\n").utf8)
        },
        feed: { data, root in
            try data.write(to: URL(fileURLWithPath: root + "/damaged.jsonl"))
            let store = try RecordStore(path: root + "/jsonl-\(UInt32.random(in: 0...UInt32.max)).sqlite")
            let items = try store.collection(BatchItem.self, named: "items")
            do {
                try items.importJSONLines(from: root + "/damaged.jsonl")
                return false
            } catch is StorageError {
                if try items.count() != 0 { throw WrongValue(description: "a failed import left records") }
                return true
            }
        }),
]

extension RecordStore {
    /// Moves everything into the main file, so a copy of it alone is a complete database.
    func withWriterCheckpoint() throws {
        _ = try verify()
    }
}

/// Child: damages `count` copies of one format's sample and feeds each to its reader. Prints one summary line;
/// a crash shows as the child dying by a signal.
func childHostile(format name: String, count: Int, seed: UInt64) throws {
    guard let format = allHostileFormats.first(where: { $0.name == name }) else {
        throw StorageError(.invalidArgument, "no format \(name)")
    }
    let root = try temporaryRoot("hostile")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let sample = try format.make(root)
    var generator = Seeded(seed)
    var refused = 0
    var accepted = 0
    var wrong = 0
    for index in 0..<count {
        let damaged: Data
        if let generate = format.generate {
            damaged = try generate(&generator, index, root)
        } else {
            let damage = Damage.allCases[index % Damage.allCases.count]
            damaged = damage.apply(sample, versionOffsets: format.versionOffsets, generator: &generator)
        }
        do {
            if try format.feed(damaged, root) { refused += 1 } else { accepted += 1 }
        } catch let error as WrongValue {
            wrong += 1
            FileHandle.standardError.write(Data("\(name) #\(index): \(error)\n".utf8))
        } catch {
            wrong += 1
            FileHandle.standardError.write(Data("\(name) #\(index): untyped \(error)\n".utf8))
        }
    }
    say("hostile \(refused) \(accepted) \(wrong)")
}
