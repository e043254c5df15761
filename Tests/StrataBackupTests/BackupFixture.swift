import Foundation
import StrataBackup
import StrataCore
import StrataSecrets
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A repository in a temporary folder with small chunks and packs (so tests exercise many of both quickly) and the
/// minimum Argon2id cost.
struct BackupFixture {
    static let passphrase = "correct horse battery staple"
    static var key: RepositoryKey { .passphrase(passphrase, cost: .minimumForTests) }
    static var smallOptions: BackupOptions {
        var options = BackupOptions()
        options.minimumChunk = 4 << 10
        options.averageChunk = 16 << 10
        options.maximumChunk = 64 << 10
        options.packSize = 128 << 10
        return options
    }

    let directory: TemporaryDirectory
    var path: String { directory.appending("repo") }

    init(options: BackupOptions = BackupFixture.smallOptions) throws {
        directory = try TemporaryDirectory(prefix: "strata-backup")
        _ = try BackupRepository.create(at: directory.appending("repo"), key: Self.key, options: options)
    }

    func open(lockTimeout: FileLock.Timeout = .seconds(30)) throws -> BackupRepository {
        try BackupRepository.open(at: path, key: Self.key, lockTimeout: lockTimeout)
    }

    /// Backs up `files` (path → content, each with modification time `time`) in memory.
    @discardableResult
    func backUp(
        _ files: [(String, [UInt8])], time: Int64 = 1_700_000_000, readsEverything: Bool = false,
        metadata: [String: String] = [:]
    ) throws -> SnapshotSummary {
        let writer = try open().beginSnapshot(readsEverything: readsEverything)
        for (name, content) in files {
            try writer.add(Self.captured(name, size: content.count, time: time), contents: content)
        }
        return try writer.commit(metadata: metadata)
    }

    /// What the snapshot holds, path → content.
    func restore(_ id: String) throws -> [String: [UInt8]] {
        let reader = try open().snapshot(id)
        var out: [String: [UInt8]] = [:]
        for file in reader.files { out[file.path] = try reader.contents(of: file) }
        return out
    }

    static func captured(_ name: String, size: Int, time: Int64 = 1_700_000_000) -> CapturedFile {
        CapturedFile(
            path: name, tier: .files, mode: 0o600, size: Int64(size),
            modificationTime: .init(seconds: time, nanoseconds: 0))
    }

    /// Deterministic pseudo-random bytes.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var out = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out[index] = UInt8(truncatingIfNeeded: state)
        }
        return out
    }

    /// The repository's files under `folder` (`data`, `index`, `snapshots`, `keys`), by relative path.
    func files(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path + "/" + folder).filter { !$0.hasPrefix(".") }.sorted()
            .map { folder + "/" + $0 }
    }

    /// Flips one bit of the file at `relative` (inside the repository), at `offset` (negative: from the end).
    func flipBit(_ relative: String, at offset: Int) throws {
        let full = path + "/" + relative
        var data = try Data(contentsOf: URL(fileURLWithPath: full))
        let index = offset >= 0 ? offset : data.count + offset
        data[index] ^= 0x10
        try data.write(to: URL(fileURLWithPath: full))
    }
}
