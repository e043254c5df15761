// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    import StrataCore
    @testable import StrataSecrets

    /// What the fuzz targets call: the keyring, manifest and rotation-record parsers and the sealed-item envelope, on
    /// hostile bytes.
    enum SecretsFuzzing {
        /// A fixed key, so inputs that happen to be well sealed reach the record parser.
        nonisolated(unsafe) static var key: GuardedKey? = try? GuardedKey(copying: Array(repeating: 7, count: 32))

        /// The fixed key's derived keys, for the manifest and the rotation record.
        nonisolated(unsafe) static var dataKeys: DataKeys? = key.flatMap { try? DataKeys($0) }

        /// Parses a keyring file, and the same bytes as an item manifest (authenticated, and its entries and header
        /// without the key, as counts and checks read them), a manifest anchor and a rotation record.
        static func keyring(_ data: Data) {
            _ = try? KeyringFile.parse(data, expectedName: "default", path: "fuzz")
            _ = ItemManifest.unauthenticatedInlineItems(data)
            _ = ItemManifest.unauthenticatedHeader(data)
            let keyringID = [UInt8](repeating: 1, count: 16)
            _ = ManifestAnchor.parse(data, keyringID: keyringID)
            guard let dataKeys else { return }
            _ = try? ItemManifest.parse(data, keyringID: keyringID, keys: [dataKeys], path: "fuzz")
            _ = try? RotationFile.parse(data, keyringID: keyringID, path: "fuzz").open(
                keyringID: keyringID, with: dataKeys, path: "fuzz")
        }

        /// Reads an item's header and opens it, under every accessibility class.
        static func item(_ data: Data) {
            guard let key else { return }
            _ = try? ItemEnvelope.header(of: data, path: "fuzz")
            for accessibility in SecretAccessibility.allCases {
                for version: UInt8 in [1, 2] {
                    _ = try? ItemEnvelope.open(
                        data, accessibility: accessibility, version: version, keyringID: Array(repeating: 1, count: 16),
                        fileName: "fuzz.item", key: key, path: "fuzz", value: true)
                }
            }
        }

        /// Seals a record and opens it again: round-trips must hold for any value.
        static func roundTrip(_ data: Data) {
            guard let key else { return }
            let record = ItemEnvelope.Record(
                service: "s", account: "a", label: "", created: Date(timeIntervalSince1970: 0),
                modified: Date(timeIntervalSince1970: 0), valueSize: data.count)
            guard
                let sealed = try? data.withUnsafeBytes({
                    try ItemEnvelope.seal(
                        record, value: $0, accessibility: .afterFirstUnlock, keyringID: Array(repeating: 1, count: 16),
                        fileName: "f", key: key)
                })
            else { return }
            guard
                let (_, secret) = try? ItemEnvelope.open(
                    sealed, accessibility: .afterFirstUnlock, version: 1, keyringID: Array(repeating: 1, count: 16),
                    fileName: "f",
                    key: key, path: "fuzz", value: true),
                secret?.data == data
            else { fatalError("a sealed item did not open to its own value") }
        }
    }
#endif
