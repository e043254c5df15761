public import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A capture of the secrets tier: every keyring folder, copied SEALED under its keyring lock held shared (writers
// change a keyring only under it held exclusively): `keyring.json` (the wrapped data key), the item manifest and
// its anchor, a crashed rotation's `rotation.key`, and every item file as it is on disk — nothing is decrypted, so
// a capture can be taken while the keyring is locked. An item whose clear header says `...ThisDeviceOnly` is left out and
// reported: it never leaves this machine.
//
// The manifest is copied whole (it is tagged under the data key, so it cannot be edited without it) and still
// names the items left out. That is a state the keyring already meets after a crash between an item's deletion
// and its tombstone: an entry without a file reads as "no such item", a later write of that item gets a
// generation past the entry, and no older copy can be put back under it. So the restored keyring is consistent.
extension SecretStore: TierCapturing {
    /// Copies every keyring of the store into `sink`, sealed, leaving out `...ThisDeviceOnly` items.
    /// - Returns: The files copied, and one omission per item left out: named `service/account` when this store's
    ///   keyring is unlocked, else by the item's file name (which does not reveal the account).
    /// - Throws: ``/StrataCore/StorageError`` `.lockTimeout` when a writer holds a keyring's lock too long, or an
    ///   I/O error.
    public func capture(into sink: any CaptureSink, root: String) throws -> CaptureReport {
        var report = CaptureReport()
        guard let tier = try paths.openDirectory(for: .secrets, create: false) else { return report }
        let relative = try CapturedFile.relativePath(tier.path, root: root, tier: .secrets)
        let names = try tier.entries(of: .secrets)
        for name in names.sorted() where !name.hasPrefix(StoragePaths.reservedPrefix) {
            // A keyring folder that cannot be read fails the capture rather than be left out of it.
            guard let info = try tier.status(ofListed: name, tier: .secrets), (info.st_mode & S_IFMT) == S_IFDIR,
                let folder = try tier.openListedFolder(name)
            else { continue }
            try keyringLock(in: folder).withLock(.shared, timeout: configuration.lockTimeout) {
                report.merge(
                    try captureKeyring(folder, path: relative + "/" + name, isThisStore: name == keyring, into: sink))
            }
        }
        return report
    }

    /// Copies one keyring folder; the caller holds its lock shared.
    private func captureKeyring(
        _ folder: DirectoryHandle, path: String, isThisStore: Bool, into sink: any CaptureSink
    ) throws -> CaptureReport {
        let names = try folder.entries(of: .secrets)
        var report = CaptureReport()
        let kept = ["keyring.json", ItemManifest.fileName, ManifestAnchor.fileName, RotationFile.fileName]
        for name in names.sorted() where kept.contains(name) || name.hasSuffix(Self.itemSuffix) {
            let filePath = path + "/" + name
            let fd: FileDescriptor
            do throws(Errno) {
                // A FIFO, socket, device or folder in a keyring file's place is refused, never waited on.
                fd = try folder.openRegularFile(name).fd
            } catch let error where error.code == ENOENT {
                continue
            } catch {
                throw error.storageError("cannot open a keyring file to capture", tier: .secrets, path: filePath)
            }
            defer { Sys.close(fd) }
            if name.hasSuffix(Self.itemSuffix), Self.isThisDeviceOnly(fd) {
                let named = isThisStore ? (try? readItem(in: folder, fileName: name, value: false)) ?? nil : nil
                report.omissions.append(
                    CaptureOmission(
                        tier: .secrets, key: named.map { ItemIdentity($0.0).displayKey } ?? name, path: filePath,
                        reason: .thisDeviceOnly))
                continue
            }
            report.count(try sink.add(descriptor: fd, path: filePath, tier: .secrets))
        }
        return report
    }

    /// Whether an item file's clear header names a `...ThisDeviceOnly` class (read without decrypting anything).
    static func isThisDeviceOnly(_ fd: FileDescriptor) -> Bool {
        var header = [UInt8](repeating: 0, count: ItemEnvelope.headerSize)
        let count = (try? header.withUnsafeMutableBytes { try Sys.pread(fd, $0, at: 0) }) ?? 0
        guard count == header.count, header.starts(with: ItemEnvelope.magic) else { return false }
        return SecretAccessibility(code: header[ItemEnvelope.headerSize - 1])?.isThisDeviceOnly ?? false
    }
}
