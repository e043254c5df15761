import Foundation

/// The description a capture of a whole store ends with (`.strata-capture.json`, a store-level file of the
/// capture that a restore reads first and does not write into the store): its format version, what it left out,
/// which files copied ahead of its instant a restore leaves out, and which catalogued keys no tier held.
///
/// ``missing`` came after version 2 without a new version: a reader that does not know it restores such a capture
/// as captures made before were restored.
struct CaptureDescription: Codable, Sendable {
    /// The version of this description and of the capture's layout. Version 2 added ``withdrawn`` (a path may
    /// then appear twice in a capture: a file copied ahead of the instant and again at it).
    static let formatVersion = 2
    /// Its path in a capture.
    static let path = StoragePaths.reservedPrefix + "capture.json"

    var version: Int
    /// When the capture was taken, in seconds since 1970.
    var created: Double
    /// The values the capture left out on purpose.
    var omissions: [CaptureOmission]
    /// The paths whose first file in the capture a restore leaves out (``/StrataCore/CaptureReport/withdrawnPaths``).
    var withdrawn: [String]
    /// The keys the captured catalog names that no tier held at the capture's instant
    /// (``/StrataCore/CaptureReport/missingKeys``): a restore drops their entries.
    var missing: [String]

    init(version: Int, created: Double, omissions: [CaptureOmission], withdrawn: [String], missing: [String]) {
        self.version = version
        self.created = created
        self.omissions = omissions
        self.withdrawn = withdrawn
        self.missing = missing
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        created = try container.decode(Double.self, forKey: .created)
        omissions = try container.decode([CaptureOmission].self, forKey: .omissions)
        // Version 1 had no withdrawn files.
        withdrawn = try container.decodeIfPresent([String].self, forKey: .withdrawn) ?? []
        missing = try container.decodeIfPresent([String].self, forKey: .missing) ?? []
    }
}
