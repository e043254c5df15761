import Foundation
import Strata

/// `strata inspect ROOT`: every tier of a store at a glance (the helpers are shared with ``VerifyCommand``).
struct InspectCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        "inspect",
        summary: "Show what a store holds: its configuration, each tier's backend and files, counts and sizes.",
        usage: "inspect [ROOT] [--root DIR] [--json]",
        details:
            "Reads the store's configuration (ROOT/strata.conf) and shows each tier's active backend as it reports "
            + "itself: its concurrency guarantee, durability and where it keeps its data. Records on PostgreSQL "
            + "are read from the server. Nothing is changed.",
        arguments: [StoreRoot.positional], options: [StoreRoot.option, JSONOutput.option])

    var root: StoreRoot
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        root = try StoreRoot(parsing: &arguments, positional: StoreRoot.positional)
        json = arguments.isSet(JSONOutput.option)
    }

    static func names(in folder: String, suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(suffix) && !$0.hasPrefix(".")
        }.sorted()
    }

    /// The store's configuration, or the built-in one and the reason when its file cannot be read.
    static func configuration(_ paths: StoragePaths) -> (StoreConfiguration, problem: String?) {
        do {
            return (try StoreAccess.configuration(paths), nil)
        } catch {
            return (StoreConfiguration(), "\(error)")
        }
    }

    /// The record store on PostgreSQL that the configuration names, or `nil` when records stay in SQLite.
    static func configuredServerRecords(_ configuration: StoreConfiguration) throws -> RecordStore? {
        try Storage.recordsURL(configuration, environment: ProcessInfo.processInfo.environment).map {
            try PostgresRecordEngine.store(PostgresConfiguration(connectionString: $0))
        }
    }

    /// The collections of a record store and their counts, on one line.
    static func collectionCounts(_ store: RecordStore) throws -> String {
        let counts = try collections(store)
        return counts.isEmpty ? "no collections" : counts.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
    }

    /// The collections of a record store and their counts.
    static func collections(_ store: RecordStore) throws -> [(name: String, count: Int)] {
        try store.collectionNames().map { ($0, try store.collection(AnyRecord.self, named: $0).count()) }
    }

    /// A defaults suite file as inspect shows it: its name, its key count (`nil` when unreadable) and its size.
    static func suite(_ file: String, in folder: String) -> (name: String, keys: Int?, bytes: Int) {
        let data = FileManager.default.contents(atPath: folder + "/" + file) ?? Data()
        var keys: Int?
        if case .dictionary(let members)? = try? PropertyListFormat.decode(data) { keys = members.count }
        return (String(file.dropLast(6)), keys, data.count)
    }

    /// The keyrings of the store (the folders under `secrets/`), by name.
    static func keyrings(_ paths: StoragePaths) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: paths.directoryPath(for: .secrets))) ?? []).sorted()
    }

    /// The file tier's file count and bytes, or `nil` when the store has no file tier.
    static func fileTotals(_ paths: StoragePaths) throws -> (count: Int, bytes: Int)? {
        guard FileManager.default.fileExists(atPath: paths.directoryPath(for: .files)) else { return nil }
        return try totals(of: FileStore(paths: paths))
    }

    /// How many files a file store holds, and their bytes.
    static func totals(of files: FileStore) throws -> (count: Int, bytes: Int) {
        let keys = try files.list()
        return (keys.count, try keys.reduce(0) { $0 + (try files.metadata($1)?.size ?? 0) })
    }

    /// The S3 location the configuration puts the file tier on (never with credentials), and its totals read from
    /// the server or why they could not be; `nil` when the files stay under the root.
    static func s3Files(_ configuration: StoreConfiguration, root: StoreRoot) -> (
        location: String, totals: Result<(count: Int, bytes: Int), any Error>
    )? {
        let location: S3FilesLocation
        do {
            guard
                let found = try Storage.filesLocation(configuration, environment: ProcessInfo.processInfo.environment)
            else { return nil }
            location = found
        } catch {
            return ("s3 (unresolved)", .failure(error))
        }
        let counted = Result {
            try totals(of: Storage.s3FileStore(location) { try SecretsAccess(root: root).open(for: .read) })
        }
        return ("\(location)", counted)
    }

    /// Each tier's active backend as it reports itself, and whether what it lists is there.
    static func printBackends(_ configuration: StoreConfiguration, paths: StoragePaths) {
        print("backends (as each reports itself):")
        let facts: [BackendFacts]
        do {
            facts = try Storage.configuredBackendFacts(configuration, paths: paths)
        } catch {
            return print("  UNKNOWN: \("\(error)".escapedForDisplay)")
        }
        for tier in Tier.allCases {
            guard let backend = facts.first(where: { $0.tier == tier }) else {
                if configuration.catalog.isShared {
                    print("  \(tier.rawValue): none (a shared store: this tier has no engine that machines share)")
                } else {
                    print("  \(tier.rawValue): '\(configuration.backend(for: tier).escapedForDisplay)' (not built in)")
                }
                continue
            }
            print("  \(tier.rawValue): \(backend.name); \(backend.concurrencyGuarantee)")
            print("    durability: \(backend.durability)")
            for entry in backend.layout {
                var state = ""
                if entry.kind == .file || entry.kind == .folder {
                    var isFolder: ObjCBool = false
                    let exists = FileManager.default.fileExists(atPath: entry.location, isDirectory: &isFolder)
                    let size = ((try? FileManager.default.attributesOfItem(atPath: entry.location))?[.size] as? Int)
                    state = !exists ? " (absent)" : isFolder.boolValue ? "" : " (\(size ?? 0) bytes)"
                }
                print("    \(entry)\(state)")
            }
        }
    }

    func run() throws {
        let paths = try root.paths(for: .read)
        if json { return JSONOutput.print(try Self.summary(paths, root: root)) }
        print("store: \(paths.root)")
        let (configuration, configurationProblem) = Self.configuration(paths)
        if let configurationProblem {
            print("configuration: UNREADABLE: \(configurationProblem.escapedForDisplay); showing the built-in one")
        } else if let file = configuration.path {
            print("configuration: \(file.escapedForDisplay) (version \(StoreConfiguration.currentVersion))")
        } else {
            print("configuration: none (every tier on Strata's own backend; 'strata init' writes one)")
        }
        if configuration.catalog.isShared {
            print("catalog: shared by every machine that opens the store, on the records' PostgreSQL server")
        }
        let defaults = paths.directoryPath(for: .defaults)
        let suites = Self.names(in: defaults, suffix: ".plist")
        if configuration.defaults.backend == "postgres" {
            // The suites are on the server; the suite files counted next, if any, are this machine's own.
            print("defaults: on PostgreSQL, in the records' schema (strata_defaults)")
        }
        print("defaults: \(suites.count) suite(s)")
        for file in suites {
            let suite = Self.suite(file, in: defaults)
            let count = suite.keys.map { "\($0) keys" } ?? "UNREADABLE"
            print("  \(suite.name.escapedForDisplay): \(count), \(suite.bytes) bytes")
        }
        let keyrings = Self.keyrings(paths)
        print("secrets: \(keyrings.count) keyring(s)")
        for keyring in keyrings {
            let store = try SecretStore(keyring: keyring, paths: paths)
            print("  \(keyring): \(store.itemCount) item(s)\(store.keyringExists ? "" : ", no keyring file")")
        }
        if configuration.records.backend == "postgres" {
            do {
                if let server = try Self.configuredServerRecords(configuration) {
                    print("records: on PostgreSQL, \(server.engine.location.escapedForDisplay)")
                    print("  \(try Self.collectionCounts(server).escapedForDisplay)")
                }
            } catch {
                print("records: on PostgreSQL: UNREADABLE: \("\(error)".escapedForDisplay)")
            }
        }
        let stores = Self.names(in: paths.directoryPath(for: .records), suffix: ".sqlite")
        if configuration.records.backend != "postgres" || !stores.isEmpty {
            print("records: \(stores.count) store(s)\(configuration.records.backend == "postgres" ? " in SQLite" : "")")
        }
        for name in stores {
            let shown = String(name.dropLast(7)).escapedForDisplay
            do {
                let store = try StoreAccess.readOnlyRecords(at: paths.directoryPath(for: .records) + "/" + name)
                print("  \(shown): \(try Self.collectionCounts(store))")
            } catch {
                // Like an unreadable suite above: say why, and go on with the other stores and tiers.
                print("  \(shown): UNREADABLE: \("\(error)".escapedForDisplay)")
            }
        }
        if let s3 = Self.s3Files(configuration, root: root) {
            print("files: on S3, \(s3.location.escapedForDisplay)")
            switch s3.totals {
            case .success(let files): print("  \(files.count) file(s), \(files.bytes) bytes")
            case .failure(let error): print("  UNREADABLE: \("\(error)".escapedForDisplay)")
            }
        } else if let files = try Self.fileTotals(paths) {
            print("files: \(files.count) file(s), \(files.bytes) bytes")
        } else {
            print("files: none")
        }
        Self.printBackends(configuration, paths: paths)
    }
}
