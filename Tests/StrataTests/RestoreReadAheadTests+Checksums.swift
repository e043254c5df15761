import Foundation
import Strata
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataBackup
@testable import StrataFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A snapshot reader finishes each file with the CRC-32 of what it wrote (computed by its workers, combined in
// order), and the restore checks it against the checksum recorded with each files-tier file instead of reading the
// file again.
extension RestoreReadAheadTests {
    @Test func eachFileIsFinishedWithTheCRC32OfItsContent() throws {
        let (repository, snapshot, values) = try backedUpStore()
        let reader = try repository.snapshot(snapshot.id)
        defer { reader.close() }
        let files = reader.files.filter { $0.tier == .files }
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        var checked = 0
        try reader.write(
            files,
            opening: { _ in FileDescriptor(rawValue: open(target + "/file", O_WRONLY | O_CREAT | O_TRUNC, 0o600)) },
            finishing: { file, descriptor, crc in
                descriptor.close()
                let written = try #require(crc, "\(file.path)")
                #expect(FileProblem.recordsChecksum(in: file.extendedAttributes), "\(file.path)")
                #expect(
                    FileProblem(key: file.path, attributes: file.extendedAttributes, crc: written, size: Int(file.size))
                        == nil, "\(file.path)")
                checked += 1
            })
        #expect(checked == values.count)
    }

    /// A snapshot whose file was sealed with other content than its checksum records (one byte flipped, size
    /// kept): every blob authenticates and hashes to its id, yet the restore fails, naming the file, and leaves no
    /// store.
    @Test func aFileThatDoesNotMatchItsChecksumFailsTheRestore() throws {
        let (repository, snapshot, _) = try backedUpStore()
        let reader = try repository.snapshot(snapshot.id)
        let writer = try repository.beginSnapshot(parent: .none)
        for file in reader.files {
            var content = try reader.contents(of: file)
            if file.path == "files/b/big.bin" { content[content.count / 3] ^= 0x01 }
            try writer.add(file, contents: content)
        }
        let forged = try writer.commit(metadata: reader.summary.metadata)
        reader.close()
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(snapshot: forged.id, from: repository, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .corrupt)
        #expect(error?.path == "files/b/big.bin")
        #expect(error?.message.contains("checksum") == true)
        #expect(try leftovers().isEmpty)
        // The snapshot as it was restores, and its files verify.
        try Storage.restore(snapshot: snapshot.id, from: repository, to: target, secretsKey: testSecretsKey)
        #expect(try openStorage(target).files.verify().isEmpty)
    }
}
