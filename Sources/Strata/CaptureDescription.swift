import Foundation

/// The description a capture of a whole store ends with (`.strata-capture.json`, a store-level file of the
/// capture that a restore reads and does not write into the store): its format version and what it left out.
struct CaptureDescription: Codable, Sendable {
    /// The version of this description and of the capture's layout.
    static let formatVersion = 1
    /// Its path in a capture.
    static let path = StoragePaths.reservedPrefix + "capture.json"

    var version: Int
    /// When the capture was taken, in seconds since 1970.
    var created: Double
    /// The values the capture left out on purpose.
    var omissions: [CaptureOmission]
}
