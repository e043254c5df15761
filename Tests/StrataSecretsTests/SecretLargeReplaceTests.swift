import Foundation
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataSecrets

/// Issue 18 item 4: replacing a large item (a file of its own) reads only what the replacement keeps of the old
/// one — its header and sealed attributes, never its value — and so does every read of attributes alone.
@Suite("SecretStore: replacing a large item")
struct SecretLargeReplaceTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    static let large = Secret(Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))

    @Test func aReplacementReadsTheOldItemsAttributesOnly() throws {
        let store = try fixture.store()
        // Attributes as long as they may be: the first read of the old file still covers them.
        let label = String(repeating: "l", count: SecretItem.attributeLimit)
        let service = String(repeating: "s", count: SecretItem.attributeLimit)
        try store.set(Self.large, service: service, account: "a", label: label)
        let created = try #require(try store.attributes(service: service, account: "a")).creationDate
        // By the store that wrote it (which remembers the attributes) and by a fresh one (which opens them).
        for writer in [store, try fixture.store()] {
            let before = writer.itemBytesRead.load(ordering: .relaxed)
            try writer.set(Self.large, service: service, account: "a")
            let read = writer.itemBytesRead.load(ordering: .relaxed) - before
            #expect(read <= OpenedItem.wholeFileLimit, "read \(read) bytes of the item it replaced")
            let item = try #require(try fixture.store().attributes(service: service, account: "a"))
            #expect(item.label == label && item.creationDate == created && item.valueSize == Self.large.count)
        }
        let reader = try fixture.store()
        let before = reader.itemBytesRead.load(ordering: .relaxed)
        #expect(try reader.items().count == 1)
        #expect(try reader.attributes(service: service, account: "a")?.label == label)
        #expect(reader.itemBytesRead.load(ordering: .relaxed) - before <= 2 * OpenedItem.wholeFileLimit)
        #expect(try reader.get(service: service, account: "a") == Self.large)
    }

    @Test func attributesReadAloneStillRefuseATruncatedOrExtendedFile() throws {
        let store = try fixture.store()
        for damage in [{ (file: Data) in file.dropLast() }, { (file: Data) in file + [0] }] {
            try store.set(Self.large, service: "s", account: "a", label: "kept")
            let path = try #require(try fixture.itemFiles().first)
            try Data(damage(Data(contentsOf: URL(fileURLWithPath: path)))).write(to: URL(fileURLWithPath: path))
            let reader = try fixture.store()
            #expect(throws: StorageError.self) { try reader.attributes(service: "s", account: "a") }
            // A replacement of a damaged item still succeeds (it keeps nothing of it).
            try reader.set(Self.large, service: "s", account: "a")
            #expect(try fixture.store().get(service: "s", account: "a") == Self.large)
        }
    }
}
