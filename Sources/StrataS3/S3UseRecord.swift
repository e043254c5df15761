import Foundation
import StrataCore

/// When this process last used each file through one ``S3FileEngine`` (a cache area's hit or store): S3 keeps no
/// access time, and setting one would cost a request per read. ``S3FileEngine/metadata(_:)`` reports the later
/// of this and the object's modification date as its access date.
///
/// Bounded: past ``capacity`` keys the older half is forgotten, and those files fall back to their modification
/// dates (older than any use kept, so the least-recently-used order among the rest holds).
struct S3UseRecord: Sendable {
    /// The most keys remembered. Each costs about a hundred bytes and its key.
    static let capacity = 100_000

    private var dates: [ExactString: Date] = [:]

    /// Records a use of `key` at `date`.
    mutating func record(_ key: String, at date: Date) {
        dates[ExactString(key)] = date
        guard dates.count > Self.capacity else { return }
        let cutoff = dates.values.sorted()[dates.count - Self.capacity / 2]
        dates = dates.filter { $0.value >= cutoff }
    }

    /// The last use of `key` recorded, or nil.
    func lastUse(of key: String) -> Date? { dates[ExactString(key)] }

    /// Forgets `key` (deleted through this engine).
    mutating func forget(_ key: String) { dates[ExactString(key)] = nil }
}
