// swift-format-ignore-file
// The README's Quick start, byte for byte from the next line on, built so that it compiles as written.
import Strata

// A store in a folder of its own, created with mode 0700 (Storage(appID:) puts it under ~/.local/share/<app-id>),
// its secrets sealed with the key made above.
let root = FileManager.default.temporaryDirectory.appending(path: "notes-store").path
let storage = try Storage(root: root, secretsKey: .keyFile("notes.key"))

// Ask where a value belongs: the decision table, as named rules.
let selection = storage.select(DataDescriptor(kind: .credential, estimatedSize: 40))
print(selection.tier, selection.ruleID, selection.appleEquivalent)   // secrets sensitive-to-secrets Keychain
print(selection.reason)

// Store typed values through the selector: a String preference lands in defaults as a plist string,
// a Secret in secrets, a PDF in files, any other Codable as JSON in records.
try storage.set("dark", for: "selectedTheme")
try storage.set(Secret("tok_live_8c1f"), for: "api/token")
let report = Data("%PDF-1.7\n%%EOF\n".utf8)                          // the bytes of a PDF your app made
try storage.set(report, for: "exports/report.pdf", contentType: "application/pdf")

// The store's catalog remembers where each key went: read, locate, list and delete without a descriptor.
let theme = try storage.value(String.self, for: "selectedTheme")   // "dark"
print(try storage.location(of: "api/token")?.tier as Any)          // Optional(secrets)
print(try storage.keys(prefix: "exports/"))                        // ["exports/report.pdf"]
try storage.delete("exports/report.pdf")                           // every copy, wherever it is

// Or use a tier's own typed API, on the very instance the facade uses.
extension DefaultsKey where Value == Int { static let launchCount = DefaultsKey("launchCount", default: 0) }
try storage.defaults.update(.launchCount) { $0 + 1 }               // atomic read-modify-write, across processes
print(try storage.value(Int.self, for: "launchCount") as Any)      // Optional(1): the same instance, at once
