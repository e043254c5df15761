import Foundation
package import StrataCore

/// The description a capture of a whole store ends with (`.strata-capture.json`, a store-level file of the
/// capture that a restore reads first and does not write into the store): its format version, what it left out,
/// which files copied ahead of its instant a restore leaves out, and which catalogued keys no tier held.
///
/// ``missing`` came after version 2 without a new version: a reader that does not know it restores such a capture
/// as captures made before were restored.
package struct CaptureDescription: Codable, Sendable {
    /// The version of this description and of the capture's layout. Version 2 added ``withdrawn`` (a path may
    /// then appear twice in a capture: a file copied ahead of the instant and again at it).
    package static let formatVersion = 2
    /// Its path in a capture.
    package static let path = StoragePaths.reservedPrefix + "capture.json"

    /// The format it was written in (``formatVersion`` when this Strata wrote it).
    package var version: Int
    /// When the capture was taken, in seconds since 1970.
    package var created: Double
    /// The values the capture left out on purpose.
    package var omissions: [CaptureOmission]
    /// The paths whose first file in the capture a restore leaves out (``/StrataCore/CaptureReport/withdrawnPaths``).
    package var withdrawn: [String]
    /// The keys the captured catalog names that no tier held at the capture's instant
    /// (``/StrataCore/CaptureReport/missingKeys``): a restore drops their entries.
    package var missing: [String]

    /// A description of a capture.
    package init(version: Int, created: Double, omissions: [CaptureOmission], withdrawn: [String], missing: [String]) {
        self.version = version
        self.created = created
        self.omissions = omissions
        self.withdrawn = withdrawn
        self.missing = missing
    }

    /// Decodes a description of any version up to ``formatVersion`` (version 1 had no withdrawn files).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        created = try container.decode(Double.self, forKey: .created)
        omissions = try container.decode([CaptureOmission].self, forKey: .omissions)
        // Version 1 had no withdrawn files.
        withdrawn = try container.decodeIfPresent([String].self, forKey: .withdrawn) ?? []
        missing = try container.decodeIfPresent([String].self, forKey: .missing) ?? []
    }
}
