package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What tells one version of a file from another without reading it: device, inode, size, and the modification
/// and change times, from one `fstatat` (a vector: no allocation).
///
/// Store files (a keyring's, a defaults suite) are only ever replaced by rename, which gives the name another inode, or edited in place by
/// someone else, which moves the change time. Neither is enough alone: a freed inode number is given again to a
/// later file, and the kernel stamps changes with a coarse clock (a tick of a few milliseconds; whole seconds on
/// some file systems), so two versions of a file made within one tick can carry the same times. A stamp therefore
/// vouches for the bytes read under it only when it is *settled*: the file's last change was at least
/// ``settlingTime`` before the read began. Any later change — an edit, a rename onto the name, a new file on a
/// reused inode — is then stamped in a later tick than the one remembered, and the stamps differ. (Git's index
/// trusts file times under the same rule.)
package struct FileStamp: Equatable, Sendable {
    /// How long a file must have stayed unchanged before its stamp vouches for its bytes: two seconds, more than
    /// the coarsest clock a file system stamps changes with (seconds; FAT's two).
    package static let settlingTime: Double = 2

    private let fields: SIMD8<Int>

    package init(_ status: stat) {
        #if canImport(Darwin)
            let (modified, changed) = (status.st_mtimespec, status.st_ctimespec)
        #else
            let (modified, changed) = (status.st_mtim, status.st_ctim)
        #endif
        fields = SIMD8(
            Int(status.st_dev), Int(status.st_ino), Int(status.st_size), Int(modified.tv_sec), Int(modified.tv_nsec),
            Int(changed.tv_sec), Int(changed.tv_nsec), 0)
    }

    /// Whether the file's last change (its change time, which every write and rename moves, and its modification
    /// time, which can be set back) was at least ``settlingTime`` before `readStart`, the time taken before the
    /// `fstat` that gave this stamp.
    package func isSettled(readStart: Double) -> Bool {
        let changed = Double(fields[5]) + Double(fields[6]) / 1e9
        let modified = Double(fields[3]) + Double(fields[4]) / 1e9
        return max(changed, modified) <= readStart - Self.settlingTime
    }

    /// The stamp of the file `name` in `folder` now (a link is not followed), or `nil` when there is none.
    package static func of(_ name: String, in folder: DirectoryHandle) -> FileStamp? {
        (try? folder.status(of: name)).flatMap { $0 }.map(FileStamp.init)
    }
}
