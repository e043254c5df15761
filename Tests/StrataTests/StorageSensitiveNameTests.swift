import Foundation
import Strata
import StrataTestSupport
import Testing

/// A key name that looks like a credential (`showPasswordHint`) can be allowed through the facade: by the
/// descriptor, or by the store configuration's allow list; the refusal names both.
@Suite("Storage: credential-looking names allowed explicitly")
struct StorageSensitiveNameTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-sensitive")
    }

    @Test func theRefusalNamesTheRealWaysToAllowTheName() throws {
        let storage = try openStorage(root)
        let error = #expect(throws: StorageError.self) {
            try storage.put(Data([1]), for: "showPasswordHint", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        }
        #expect(error?.code == .sensitiveKey)
        #expect(
            error?.recovery?.contains("DataDescriptor(allowsSensitiveName: true)") == true,
            "\(String(describing: error))")
        #expect(error?.recovery?.contains("allow-sensitive-key") == true)
        #expect(try storage.contains("showPasswordHint") == false)
    }

    @Test func theDescriptorAllowsTheName() throws {
        let storage = try openStorage(root)
        let selection = try storage.put(
            Data([1]), for: "showPasswordHint",
            as: DataDescriptor(kind: .preference, estimatedSize: 1, allowsSensitiveName: true))
        #expect(selection.tier == .defaults)
        #expect(try storage.data(for: "showPasswordHint") == Data([1]))
        // Only that value: another credential-looking name is still refused.
        #expect(throws: StorageError.self) {
            try storage.put(Data([1]), for: "authToken", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        }
    }

    @Test func theConfigurationAllowsTheNameForEveryPut() throws {
        var configuration = StoreConfiguration()
        configuration.defaults.allowedSensitiveKeys = ["showPasswordHint"]
        try configuration.write(to: StoragePaths(root: root))
        let storage = try openStorage(root)
        try storage.put(Data([1]), for: "showPasswordHint", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        #expect(try storage.location(of: "showPasswordHint")?.tier == .defaults)
        #expect(storage.configuration.defaults.allowedSensitiveKeys == ["showPasswordHint"])
    }
}
