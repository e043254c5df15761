import Foundation
import StrataCore
import Testing

@testable import StrataSecrets

/// Issue 36 item 6: a secret reads as a `String` (`value(String.self, …)`, a subscript), and one whose bytes are not
/// UTF-8 is a typed error, never `nil` as if it were absent.
@Suite("SecretStore: secrets read as strings")
struct SecretStringReadTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    @Test func aSecretReadsAsAStringByServiceAndAccountAndByKey() throws {
        let store = try fixture.store()
        try store.set("tok_live_1", service: "api", account: "alice")
        try store.put(Data("tok_storage".utf8), for: "api/token")
        #expect(try store.value(String.self, service: "api", account: "alice") == "tok_live_1")
        #expect(try store[service: "api", account: "alice"] == "tok_live_1")
        #expect(try store.value(String.self, for: "api/token") == "tok_storage")
        #expect(try store["api/token"] == "tok_storage")
        // Absent is nil, and only absent.
        #expect(try store.value(String.self, service: "api", account: "bob") == nil)
        #expect(try store["api/missing"] == nil)
    }

    @Test func bytesThatAreNotUTF8AreATypeMismatchNotAbsent() throws {
        let store = try fixture.store()
        try store.set(Secret(Data([0xFF, 0xFE, 0x00, 0x80])), service: "api", account: "binary")
        try store.put(Data([0xC3, 0x28]), for: "api/binary")
        let byAccount = #expect(throws: StorageError.self) {
            try store.value(String.self, service: "api", account: "binary")
        }
        #expect(byAccount?.code == .typeMismatch)
        #expect(byAccount?.tier == .secrets)
        #expect(byAccount?.key == "binary")
        #expect(byAccount?.collection == "default")
        #expect(byAccount?.message.contains("not UTF-8") == true, "\(byAccount?.message ?? "")")
        #expect(byAccount?.recovery?.contains("get(service:account:)") == true)
        let byKey = #expect(throws: StorageError.self) { try store["api/binary"] }
        #expect(byKey?.code == .typeMismatch)
        #expect(byKey?.key == "api/binary")
        // The bytes are still there, whole.
        #expect(try store.get(service: "api", account: "binary")?.data == Data([0xFF, 0xFE, 0x00, 0x80]))
    }
}
