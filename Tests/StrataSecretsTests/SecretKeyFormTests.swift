import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 33 item 10: a key from the environment is 64 hex characters or base64, and a key file holds 32 random
/// bytes, hex or base64; text is never taken as the key's bytes (`passwordpassword…` opened a keyring).
@Suite("SecretStore: the forms of a key")
struct SecretKeyFormTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    static let text = "passwordpasswordpasswordpassword"
    static let textHex = Array(text.utf8).map { String(format: "%02x", $0) }.joined()

    /// A variable of this test's own (the process environment is shared by the tests running in parallel).
    func environment(_ suffix: String, _ value: String) -> KeyProvider {
        let name = "STRATA_TEST_KEY_FORM_\(suffix)"
        setenv(name, value, 1)
        return .environment(name)
    }

    func keyFile(_ name: String, _ bytes: [UInt8]) throws -> KeyProvider {
        let path = fixture.directory.appending(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return .keyFile(path)
    }

    @Test func textInTheEnvironmentIsRefusedNeverTakenAsKeyBytes() throws {
        for (suffix, value) in [("TEXT", Self.text), ("SPACES", " \(Self.text) "), ("SHORT", "password")] {
            let refused = #expect(throws: StorageError.self, "\(suffix)") {
                try fixture.store("env", provider: environment(suffix, value))
            }
            #expect(refused?.code == .invalidArgument)
            #expect(refused?.message.contains("64 hex characters or base64") == true, "\(refused?.message ?? "")")
            #expect(refused?.message.contains("32 random bytes") == false, "raw bytes are a key file's form only")
        }
        #expect(!fixture.keyringExists("env"), "nothing was created")
        // The documented forms open one keyring; the text's own bytes given as hex are the key it stood for.
        let store = try fixture.store("env", provider: environment("HEX", Self.textHex))
        try store.set("v", service: "s", account: "a")
        let base64 = Data(Self.text.utf8).base64EncodedString()
        #expect(
            try fixture.store("env", provider: environment("BASE64", base64)).get(service: "s", account: "a")?
                .stringValue == "v")
        #expect(
            try fixture.store("env", provider: environment("UPPER", Self.textHex.uppercased()))
                .get(service: "s", account: "a")?.stringValue == "v")
    }

    @Test func aKeyFileOfTextIsRefusedRawBytesHexAndBase64AreTaken() throws {
        let textForms: [(String, [UInt8])] = [
            ("text", Array(Self.text.utf8)), ("line", Array(Self.text.dropLast().utf8) + [0x0A]),
            ("tabs", Array(repeating: 0x09, count: 32)),
        ]
        for (name, bytes) in textForms {
            let refused = #expect(throws: StorageError.self, "\(name)") {
                try fixture.store("file", provider: keyFile(name, bytes))
            }
            #expect(refused?.code == .invalidArgument)
            #expect(refused?.message.contains("32 random bytes, 64 hex characters or base64") == true)
        }
        #expect(!fixture.keyringExists("file"))
        var raw = Array(Self.text.utf8)
        raw[7] = 0x00  // One byte that is not text: 32 raw bytes.
        let store = try fixture.store("file", provider: keyFile("raw", raw))
        try store.set("v", service: "s", account: "a")
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        for (name, bytes) in [
            ("hex", Array((hex + "\n").utf8)), ("base64", Array(Data(raw).base64EncodedString().utf8)),
        ] {
            #expect(
                try fixture.store("file", provider: keyFile(name, bytes)).get(service: "s", account: "a")?
                    .stringValue == "v", "\(name)")
        }
        // The environment takes the same key as hex, never as raw bytes.
        #expect(
            try fixture.store("file", provider: environment("RAWHEX", hex)).get(service: "s", account: "a")?
                .stringValue == "v")
    }
}

extension SecretsFixture {
    func keyringExists(_ keyring: String) -> Bool {
        FileManager.default.fileExists(atPath: keyringFolder(keyring) + "/keyring.json")
    }
}
