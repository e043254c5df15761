import Foundation
import StrataCore
import StrataSecrets
import Synchronization

// The machine's anchor: the highest manifest sequence number it has seen, kept in ``PostgresSecrets/anchorPath``
// (the format of a keyring folder's `items.anchor`), so that a rollback on the server is refused after a restart
// too. The file vouches for what this machine saw; a missing or damaged one vouches for nothing and refuses nothing.
extension PostgresSecrets {
    /// The sequence number the anchor file holds for the keyring `keyringID`, or 0.
    func readAnchor(keyringID: [UInt8]) -> UInt64 {
        guard let anchorPath, let data = try? AtomicFile.read(anchorPath, maximumSize: 4096),
            let anchor = ManifestAnchor.parse(data, keyringID: keyringID)
        else { return 0 }
        return anchor.sequence
    }

    /// Records `sequence` in the anchor file when it is higher than what the file holds. Not flushed: a lost
    /// update only lags, and a lagging anchor refuses nothing current.
    func advanceAnchor(to sequence: UInt64, keyringID: [UInt8]) {
        guard let anchorPath else { return }
        let advanced = anchorWritten.withLock { written -> Bool in
            guard sequence > written else { return false }
            written = sequence
            return true
        }
        guard advanced, readAnchor(keyringID: keyringID) < sequence else { return }
        try? AtomicFile.write(
            ManifestAnchor(sequence: sequence).serialized(keyringID: keyringID), to: anchorPath, durability: .atomicOnly
        )
    }

    /// Whether the anchor file holds a keyring's sequence number (of any keyring id): this machine has seen a keyring
    /// of this name on the server.
    var anchorNamesAKeyring: Bool {
        guard let anchorPath, let data = try? AtomicFile.read(anchorPath, maximumSize: 4096) else { return false }
        let bytes = [UInt8](data)
        let idStart = ManifestAnchor.magic.count + 1
        guard bytes.count >= idStart + 16 else { return false }
        return ManifestAnchor.parse(data, keyringID: Array(bytes[idStart..<(idStart + 16)])) != nil
    }
}
