import Foundation
import Strata

extension InspectCommand {
    /// What `strata inspect --json` prints: the facts the text lists, as one object.
    ///
    /// `{"root", "configuration": {"path" (or null), "problem"?}, "defaults": [{"suite", "keys" (null when
    /// unreadable), "bytes"}], "secrets": [{"keyring", "items", "hasKeyringFile"}], "records": {"backend",
    /// "stores": [{"store", "collections": [{"name", "count"}]} or {"store", "problem"}]}, "files": {"count",
    /// "bytes"} (on S3 also "location", or "location" and "problem") or null, "backends": [{"tier", "name",
    /// "concurrency", "durability"}], "catalog": {"shared"}}`.
    static func summary(_ paths: StoragePaths, root: StoreRoot) throws -> JSONValue {
        let (configuration, problem) = self.configuration(paths)
        var file: [ExactString: JSONValue] = ["path": configuration.path.map { .string($0) } ?? .null]
        if let problem { file["problem"] = .string(problem) }
        let defaultsFolder = paths.directoryPath(for: .defaults)
        let suites = names(in: defaultsFolder, suffix: ".plist").map { name -> JSONValue in
            let suite = suite(name, in: defaultsFolder)
            return .object([
                "suite": .string(suite.name), "keys": suite.keys.map { .integer(Int64($0)) } ?? .null,
                "bytes": .integer(Int64(suite.bytes)),
            ])
        }
        let keyrings = try keyrings(paths).map { name -> JSONValue in
            let store = try SecretStore(keyring: name, paths: paths)
            return .object([
                "keyring": .string(name), "items": .integer(Int64(store.itemCount)),
                "hasKeyringFile": .bool(store.keyringExists),
            ])
        }
        let recordsFolder = paths.directoryPath(for: .records)
        let stores = names(in: recordsFolder, suffix: ".sqlite").map { name -> JSONValue in
            let store: ExactString = "store"
            do {
                let counts = try collections(StoreAccess.readOnlyRecords(at: recordsFolder + "/" + name))
                let listed = counts.map {
                    JSONValue.object(["name": .string($0.name), "count": .integer(Int64($0.count))])
                }
                return .object([store: .string(String(name.dropLast(7))), "collections": .array(listed)])
            } catch {
                return .object([store: .string(String(name.dropLast(7))), "problem": .string("\(error)")])
            }
        }
        var files = try fileTotals(paths).map {
            JSONValue.object(["count": .integer(Int64($0.count)), "bytes": .integer(Int64($0.bytes))])
        }
        if let s3 = s3Files(configuration, root: root) {
            switch s3.totals {
            case .success(let totals):
                files = .object([
                    "location": .string(s3.location), "count": .integer(Int64(totals.count)),
                    "bytes": .integer(Int64(totals.bytes)),
                ])
            case .failure(let error):
                files = .object(["location": .string(s3.location), "problem": .string("\(error)")])
            }
        }
        let backends = ((try? Storage.configuredBackendFacts(configuration, paths: paths)) ?? []).map {
            JSONValue.object([
                "tier": .string($0.tier.rawValue), "name": .string($0.name),
                "concurrency": .string($0.concurrencyGuarantee), "durability": .string($0.durability.description),
            ])
        }
        return .object([
            "root": .string(paths.root), "configuration": .object(file), "defaults": .array(suites),
            "secrets": .array(keyrings),
            "records": .object(["backend": .string(configuration.records.backend), "stores": .array(stores)]),
            "files": files ?? .null, "backends": .array(backends),
            "catalog": .object(["shared": .bool(configuration.catalog.isShared)]),
        ])
    }
}
