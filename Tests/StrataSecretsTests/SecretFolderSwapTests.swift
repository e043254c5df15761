import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// A manifest kept in memory (settled, or held open: ``PinnedFile``) vouches for the keyring folder it was read
/// in, and for no other: a folder swapped in at the keyring's path may hold that very file (a copy made by hard
/// links, as snapshot tools make them) next to a newer anchor, which only a read of the anchor tells.
@Suite("SecretStore: a keyring folder swapped")
struct SecretFolderSwapTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    /// How long the manifest stayed unchanged before the store read it.
    enum Age: String, CaseIterable, CustomTestStringConvertible {
        /// Read within the settling time: the file held open vouches.
        case justWritten
        /// Read after it: the stamp vouches.
        case settled
        var testDescription: String { rawValue }
    }

    /// The copy's manifest is an earlier one than its anchor recorded: the store that read the manifest in the
    /// first folder says `rolled-back`, as a store that never read it does.
    @Test(arguments: Age.allCases)
    func aManifestReadInAnotherFolderVouchesForNothing(_ age: Age) throws {
        let store = try fixture.store()
        let folder = fixture.keyringFolder()
        let copy = folder + ".copy"
        try store.set("revoked", service: "shared", account: "p-0")
        // The copy shares every file with the folder, the manifest's inode included; made before the store reads
        // it, so the file's stamp is the one the store keeps.
        #expect(mkdir(copy, 0o700) == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            #expect(link(folder + "/" + name, copy + "/" + name) == 0, "\(name)")
        }
        if age == .settled { Thread.sleep(forTimeInterval: FileStamp.settlingTime + 0.1) }
        #expect(try store.get(service: "shared", account: "p-0")?.stringValue == "revoked")  // Read.
        #expect(try store.get(service: "shared", account: "p-0")?.stringValue == "revoked")  // From memory.
        // The folder moves away and a plain copy of it takes its place, where another process revokes the value:
        // a new manifest, and the anchor advanced past the first. The manifest file read above is not touched.
        #expect(rename(folder, folder + ".away") == 0)
        try FileManager.default.copyItem(atPath: folder + ".away", toPath: folder)
        try fixture.store().set("current", service: "shared", account: "p-0")
        let anchor = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + ManifestAnchor.fileName))
        try anchor.write(to: URL(fileURLWithPath: copy + "/" + ManifestAnchor.fileName + ".new"))
        #expect(rename(copy + "/" + ManifestAnchor.fileName + ".new", copy + "/" + ManifestAnchor.fileName) == 0)
        // The first copy, with that newer anchor, takes the folder's place: its manifest is an earlier one put back,
        // the very file the store read, with the stamp it read.
        #expect(rename(folder, folder + ".old") == 0)
        #expect(rename(copy, folder) == 0)
        for reader in [store, try fixture.store()] {
            let refused = #expect(throws: StorageError.self) { try reader.get(service: "shared", account: "p-0") }
            #expect(refused?.code == .rolledBack, "\(age)")
        }
    }
}
