import Foundation
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Who may write in a folder of a store or of a backup repository.
extension DirectoryHandle {
    /// Refuses the folder when others may change what it holds: always when every user may write in it; with
    /// ``StoragePaths/Sharing/private`` also when another user owns it or its group may write in it.
    /// - Parameters:
    ///   - sharing: Who besides the owner may write in it.
    ///   - noun: What the folder is (`store`, `repository`), for the errors: "the store folder ...".
    ///   - tier: The tier it belongs to, for the errors.
    ///   - groupOption: How the caller lets a group share the folder (`open it with sharing: .group`), offered in
    ///     the recovery of a private folder's refusal; `nil` when such a folder is never shared.
    /// - Throws: ``StorageError`` `.unsafePermissions` naming the folder, or an I/O error.
    package func checkOwnership(
        sharing: StoragePaths.Sharing, noun: String, tier: Tier? = nil, groupOption: String? = nil
    ) throws(StorageError) {
        let info: stat
        do throws(Errno) { info = try status() } catch {
            throw error.storageError("cannot inspect the \(noun) folder", tier: tier, path: path)
        }
        let mode = info.st_mode & 0o7777
        let octal = "0" + String(mode, radix: 8)
        let alternative = groupOption.map { ", or \($0) if its group is meant to share it" } ?? ""
        if mode & 0o002 != 0 {
            throw StorageError(
                .unsafePermissions, "the \(noun) folder is writable by every user (mode \(octal))", tier: tier,
                path: path, recovery: "Run chmod o-w '\(path)': a \(noun) is never shared with every user")
        }
        guard sharing == .private else { return }
        if info.st_uid != Sys.effectiveUserID {
            throw StorageError(
                .unsafePermissions,
                "the \(noun) folder belongs to user \(info.st_uid), not to this process's user \(Sys.effectiveUserID)",
                tier: tier, path: path,
                recovery: "Run chown \(Sys.effectiveUserID) '\(path)' or use the \(noun) as its owner" + alternative)
        }
        if mode & 0o020 != 0 {
            throw StorageError(
                .unsafePermissions, "the \(noun) folder is writable by its group (mode \(octal))", tier: tier,
                path: path, recovery: "Run chmod g-w '\(path)'" + alternative)
        }
    }
}
