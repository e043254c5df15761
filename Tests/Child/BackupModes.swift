import Foundation
import StrataBackup
import StrataCore
import StrataSecrets
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The child modes that write to a backup repository and are killed mid-way (`STRATA_FAULT_KILL`, see
/// `FaultKill`, stops one of their system calls with SIGKILL); `false` when `arguments` names none of them. The passphrase uses the minimum
/// Argon2id cost the tests create repositories with.
func runBackupMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "backup-folder":
        // backup-folder REPO PASSPHRASE FOLDER [HOLD]: back up every regular file of FOLDER (one level); prints
        // `snapshot ID`. With HOLD, prints `written` once every file is in packs and waits for the file
        // HOLD to exist before committing (the packs are not indexed until then).
        let repository = try BackupRepository.open(
            at: arguments[1], key: .passphrase(arguments[2], cost: .minimumForTests))
        let writer = try repository.beginSnapshot()
        let folder = arguments[3]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let path = folder + "/" + name
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            fstat(fd, &info)
            let file = CapturedFile(
                path: name, tier: .files, mode: UInt32(info.st_mode & 0o777), size: Int64(info.st_size),
                modificationTime: .init(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int32(info.st_mtim.tv_nsec)))
            try writer.add(file, contentsOf: FileDescriptor(rawValue: fd))
        }
        if arguments.count > 4 {
            say("written")
            while !FileManager.default.fileExists(atPath: arguments[4]) { usleep(10_000) }
        }
        let summary = try writer.commit()
        say("snapshot \(summary.id)")
    case "backup-init":
        // backup-init REPO PASSPHRASE: make a repository; prints `created`.
        _ = try BackupRepository.create(at: arguments[1], key: .passphrase(arguments[2], cost: .minimumForTests))
        say("created")
    case "backup-loop":
        // backup-loop REPO PASSPHRASE COUNT: COUNT snapshots, the N-th of one file `f` holding `backupRound(N)` and
        // the metadata `round` = N; prints `backed up COUNT`.
        let repository = try BackupRepository.open(
            at: arguments[1], key: .passphrase(arguments[2], cost: .minimumForTests))
        let count = Int(arguments[3]) ?? 1
        for round in 0..<count {
            let writer = try repository.beginSnapshot()
            let content = backupRound(round)
            try writer.add(
                CapturedFile(
                    path: "f", tier: .files, mode: 0o600, size: Int64(content.count),
                    modificationTime: .init(seconds: Int64(round), nanoseconds: 0)), contents: content)
            _ = try writer.commit(metadata: ["round": String(round)])
        }
        say("backed up \(count)")
    case "forget-prune-loop":
        // forget-prune-loop REPO PASSPHRASE COUNT: COUNT times, forget all but the 3 latest snapshots, then prune
        // (skipped when backups or readers keep the lock past a second); prints `pruned P of COUNT`.
        let repository = try BackupRepository.open(
            at: arguments[1], key: .passphrase(arguments[2], cost: .minimumForTests), lockTimeout: .seconds(1))
        let count = Int(arguments[3]) ?? 1
        var pruned = 0
        for _ in 0..<count {
            _ = try repository.forget(RetentionPolicy(keepLast: 3))
            do {
                _ = try repository.prune()
                pruned += 1
            } catch let error as StorageError where error.code == .lockTimeout {
                continue
            }
        }
        say("pruned \(pruned) of \(count)")
    case "backup-prune":
        // backup-prune REPO PASSPHRASE: prune; prints `pruned DELETED WRITTEN`.
        let repository = try BackupRepository.open(
            at: arguments[1], key: .passphrase(arguments[2], cost: .minimumForTests))
        let report = try repository.prune()
        say("pruned \(report.packsDeleted) \(report.packsWritten)")
    default:
        return false
    }
    return true
}

/// The content of the file `f` of the N-th snapshot `backup-loop` writes: some 5 KB, one chunk, its own blob.
func backupRound(_ round: Int) -> [UInt8] {
    Array(String(repeating: "round \(round);", count: 500).utf8)
}
