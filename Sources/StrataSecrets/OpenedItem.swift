import Foundation
import StrataCore
import StrataSystem

/// What a store remembers of an item file it opened or sealed, by file name (``SecretStore/Keys/openedItems``):
/// the sealed bytes — never the value in clear — the class key that opened or sealed them, and the attributes
/// they hold.
///
/// Two uses, each equivalent to reading the same bytes again:
/// - A read that finds, in the file, exactly the bytes up to the end of the sealed attributes, under the same key,
///   opens only the value box (``SecretStore/knownAttributes(of:fileName:key:)``).
/// - When the file's stamp was settled at the read (``FileStamp/isSettled(readStart:)``) and the file is small,
///   the whole file is kept with its stamp: a read whose `fstatat` gives the same stamp takes the bytes from here
///   instead of opening and reading the file, which the stamp shows to be unchanged. The value box is opened and
///   the manifest checked as for bytes read from the disk.
struct OpenedItem {
    /// The largest item file kept whole with its stamp: a small secret's (tokens, keys, passwords).
    static let wholeFileLimit = 4096

    /// The file's bytes up to the end of its sealed attributes, or all of them when `stamp` is set.
    let sealed: Data
    /// The class key that opened or sealed them.
    let key: GuardedKey
    /// What the sealed attributes hold.
    let record: ItemEnvelope.Record
    /// The settled stamp of the file `sealed` holds whole, or `nil`.
    let stamp: FileStamp?

    /// Remembers `file`, whole when `stamp` is given and the file is at most ``wholeFileLimit`` bytes, else up to
    /// the end of its sealed attributes; `nil` when the file is too short to hold them.
    init?(_ file: Data, key: GuardedKey, record: ItemEnvelope.Record, stamp: FileStamp?) {
        guard let end = ItemEnvelope.attributesEnd(of: file) else { return nil }
        let whole = stamp != nil && file.count <= Self.wholeFileLimit
        // A copy, never a slice: a slice would keep a large file's bytes alive.
        sealed = file.withUnsafeBytes { Data(bytes: $0.baseAddress!, count: whole ? file.count : end) }
        self.key = key
        self.record = record
        self.stamp = whole ? stamp : nil
    }
}
