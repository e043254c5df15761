import Foundation
import Strata
import StrataTestSupport
import Testing

/// Issue 36 item 6 through the facade: a secret stored as a `Secret` reads back with `value(String.self, for:)`, and
/// one whose bytes are not UTF-8 is `type-mismatch` naming the tier and the key, never `nil` as if absent.
@Suite("Storage: secrets read as strings")
struct SecretStringStorageTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-secret-strings") }

    @Test func aSecretReadsAsAString() throws {
        let storage = try Storage(root: directory.appending("store"), secretsKey: testSecretsKey)
        try storage.set(Secret("tok_live"), for: "api/token")
        #expect(try storage.value(String.self, for: "api/token") == "tok_live")
        try storage.set(Secret(Data([0xFF, 0xFE, 0x80])), for: "api/binary")
        let error = #expect(throws: StorageError.self) { try storage.value(String.self, for: "api/binary") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.tier == .secrets)
        #expect(error?.key == "api/binary")
        #expect(try storage.value(Secret.self, for: "api/binary")?.data == Data([0xFF, 0xFE, 0x80]))
    }
}
