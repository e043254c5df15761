import Foundation
public import StrataCore
import StrataPostgres
import StrataPostgresClient
import StrataSecrets

// A capture of the secrets tier on PostgreSQL: every keyring of the schema, read from the capture's snapshot (in a
// capture of a whole store, the one every tier on the server and schema reads: `PostgresSnapshotCapture`), each
// written as the keyring folder a `SecretStore` keeps — `secrets/<keyring>/keyring.json`, `items.manifest` and one
// file per item, the very bytes of the rows — so that a capture of a shared store restores into a one-machine store,
// and opens there with the same key. Nothing is decrypted: a capture needs no key.
extension PostgresSecrets: TierCapturing {
    /// Writes every keyring of the schema into `sink` as keyring folders, from one snapshot.
    /// - Returns: The files written (nothing is left out).
    /// - Throws: ``/StrataCore/StorageError``: the server's errors, `.corrupt` for a row the server sent damaged, or
    ///   the sink's.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        try beginCapture(into: sink, root: root).completed(into: sink)
    }

    /// The steps of a capture: the snapshot at the instant, the keyrings copied from it after.
    public func beginCapture(into sink: any CaptureSink, root: String) throws -> any TierCapture {
        PostgresSnapshotCapture(configuration.client, tier: .secrets) { connection, sink in
            try self.writeKeyrings(from: connection, into: sink)
        }
    }

    private func writeKeyrings(from connection: PostgresConnection, into sink: any CaptureSink) throws -> CaptureReport
    {
        let keyringRows = try connection.query(PostgresSecretsSQL.everyKeyring, operation: "capture")
        let itemRows = try connection.query(PostgresSecretsSQL.everyKeyringItem, operation: "capture")
        let keyrings = try (0..<keyringRows.rowCount).map { row in
            (
                keyringRows.text(row, 0), try hex(keyringRows.text(row, 1), what: "keyring file"),
                try hex(keyringRows.text(row, 2), what: "manifest")
            )
        }
        let items = try (0..<itemRows.rowCount).map { row in
            (itemRows.text(row, 0), itemRows.text(row, 1), try hex(itemRows.text(row, 2), what: "item"))
        }
        // Names come from the server: each must be one a writer makes, so that a row cannot land on the keyring file
        // or the manifest of the folder written, nor outside it.
        for (keyring, _, _) in keyrings { try checkCapturedName(keyring, isKeyring: true) }
        for (_, name, _) in items { try checkCapturedName(name, isKeyring: false) }
        var report = CaptureReport()
        let now = CapturedFile.Timespec(seconds: Int64(Date().timeIntervalSince1970), nanoseconds: 0)
        func add(_ path: String, _ contents: [UInt8]) throws {
            let file = CapturedFile(
                path: Tier.secrets.directoryName + "/" + path, tier: .secrets, mode: 0o600,
                size: Int64(contents.count), modificationTime: now)
            try sink.add(file, contents: contents)
            report.count(file)
        }
        for (keyring, file, manifest) in keyrings {
            try add(keyring + "/keyring.json", file)
            try add(keyring + "/items.manifest", manifest)
        }
        for (keyring, name, item) in items {
            guard keyrings.contains(where: { $0.0 == keyring }) else {
                try checkCapturedName(keyring, isKeyring: true)
                report.omissions.append(
                    CaptureOmission(
                        tier: .secrets, key: name, path: Tier.secrets.directoryName + "/" + keyring + "/" + name,
                        reason: .orphaned))
                continue
            }
            try add(keyring + "/" + name, item)
        }
        return report
    }

    /// Refuses a keyring name or item row name the server sent that no writer makes (`corrupt`, naming it).
    private func checkCapturedName(_ name: String, isKeyring: Bool) throws {
        let valid = isKeyring ? (try? SecretStore.validateKeyringName(name)) != nil : Self.isItemName(name)
        guard valid else {
            throw StorageError(
                .corrupt,
                "the server holds a \(isKeyring ? "keyring" : "secrets row") named '\(name)', which no "
                    + "writer makes", tier: .secrets,
                path: configuration.redactedConnectionString + "#"
                    + configuration.schema, recovery: "Remove the row from strata_keyrings or strata_secrets")
        }
    }

    /// Whether `name` is one a writer makes for an item row (and file): 32 lowercase hex digits and `.item`.
    static func isItemName(_ name: String) -> Bool {
        name.utf8.count == 32 + SecretStore.itemSuffix.utf8.count && name.hasSuffix(SecretStore.itemSuffix)
            && name.utf8.prefix(32).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
