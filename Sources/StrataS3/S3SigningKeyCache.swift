import StrataCore
import Synchronization

/// The signing key of the day an ``S3Signer`` last signed for: the key changes once a day, and deriving it (four
/// HMACs) cost as much as the rest of a small request's signature.
final class S3SigningKeyCache: Sendable {
    private let latest = Mutex<(day: String, key: [UInt8])?>(nil)

    /// The key of `day`: the one kept, or else the one `derive` makes, then kept.
    func key(day: String, _ derive: (String) throws(StorageError) -> [UInt8]) throws(StorageError) -> [UInt8] {
        if let kept = latest.withLock({ $0 }), kept.day == day { return kept.key }
        let key = try derive(day)
        latest.withLock { $0 = (day, key) }
        return key
    }
}
