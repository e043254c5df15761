import Foundation
public import Strata

/// What both sample programs share: argument reading, and the library import that stores every value through
/// ``Storage`` where ``StorageSelector`` says.
public enum Sample {
    /// `--name value` from the command line, or a default.
    public static func option(_ name: String, default value: String? = nil) -> String? {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
        return arguments[index + 1]
    }

    /// Prints a line and flushes it, so a parent process reading the output sees it at once.
    public static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Stops with a message on stderr and exit code 1.
    public static func fail(_ error: any Error) -> Never {
        FileHandle.standardError.write(
            Data("\(CommandLine.arguments[0].split(separator: "/").last ?? ""): error: \(error)\n".utf8))
        exit(1)
    }

    /// Opens the store at `root`, its secrets tier unlocked with `STRATA_PASSPHRASE` (or the demo passphrase).
    public static func openStorage(root: String) throws -> Storage {
        let passphrase = ProcessInfo.processInfo.environment["STRATA_PASSPHRASE"] ?? "strata demo passphrase"
        return try Storage(root: root, secretsKey: .passphrase(passphrase))
    }

    /// The library import: for each item the store's selector decides the tier, the value is put through the
    /// facade, and the store's own answer (``Storage/location(of:)``) is checked against the decision and
    /// printed: `label -> tier (Apple equivalent, rule id) as key`.
    /// - Returns: Where each item went, in order.
    /// - Throws: ``StorageError`` from the put, or `.wrongTier` when an item did not land where the selector (or
    ///   the sample's design, ``LibraryItem/expectedTier``) says.
    @discardableResult
    public static func importLibrary(_ items: [LibraryItem], into storage: Storage) throws -> [StorageLocation] {
        try items.map { item in
            let plan = storage.selector.select(item.descriptor)
            if let expected = item.expectedTier, plan.tier != expected {
                throw StorageError(
                    .wrongTier, "the selector chose \(plan.tier) for \(item.label), not \(expected)", tier: plan.tier,
                    key: item.key)
            }
            try storage.put(item.value, for: item.key, as: item.descriptor)
            guard let location = try storage.location(of: item.key), location.tier == plan.tier else {
                throw StorageError(
                    .wrongTier, "\(item.label) did not land in \(plan.tier), where the selector sent it",
                    tier: plan.tier, key: item.key)
            }
            say(
                "\(item.label) -> \(location.tier.rawValue) (\(plan.appleEquivalent), rule \(location.ruleID)) as "
                    + item.key.escapedForDisplay)
            return location
        }
    }

    /// Imports the files of `--library DIR`, when given, under `library/`.
    public static func importLibraryOption(into storage: Storage) throws {
        guard let folder = option("--library") else { return }
        let locations = try importLibrary(try LibraryItem.items(inFolder: folder, prefix: "library/"), into: storage)
        say("imported \(locations.count) library item(s)")
    }

    /// The file store the facade writes to, for what only files do (exports, paths on disk).
    /// - Throws: `.wrongTier` when the active files backend is not the built-in file store.
    public static func fileStore(of storage: Storage) throws -> FileStore {
        guard let files = try storage.backend(for: .files) as? FileStore else {
            throw StorageError(.wrongTier, "the active files backend is not the file store", tier: .files)
        }
        return files
    }

    /// How many of the keys under `prefix` live in `tier`, by the store's catalog.
    public static func count(_ storage: Storage, prefix: String, in tier: Tier) throws -> Int {
        try storage.keys(prefix: prefix).filter { try storage.location(of: $0)?.tier == tier }.count
    }
}
