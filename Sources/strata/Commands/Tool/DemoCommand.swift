import Foundation
import Strata

/// `strata demo`: stores a set of typical app values through the selector and shows where each went and why.
struct DemoCommand: ToolCommand {
    static let rootOption = Option(
        "--root", "DIR",
        "Store root to use (kept afterwards). The default is a fresh temporary folder, removed at the end.",
        completion: .path)
    static let minimumOSOption = Option(
        "--min-os", "OS", "The app's minimum OS (iOS17 reports records as SwiftData).", read: SelectCommand.minimumOS)
    static let configuration = CommandConfiguration(
        "demo",
        summary: "Route typical app values through the selector into every tier, and show what went where and why.",
        usage: "demo [--root DIR] [--min-os OS]", options: [rootOption, minimumOSOption],
        output: .content("a walkthrough for people to read"))

    /// `--root`, if given (never `STRATA_ROOT`: without it the demo makes a temporary store).
    var root: String?
    var minimumOS: PlatformVersion?

    init(parsing arguments: inout ParsedArguments) throws {
        root = try arguments.value(Self.rootOption)
        minimumOS = try arguments.value(Self.minimumOSOption)
    }

    /// One sample value of the demo.
    struct Sample {
        var label: String
        var key: String
        var value: Data
        var descriptor: DataDescriptor
    }

    static func samples() -> [Sample] {
        let pdfLike = Data("%PDF-1.7\n".utf8) + Data(repeating: 0x20, count: 48_000)
        var wav = Data("RIFF".utf8)
        wav.append(Data(repeating: 0, count: 96_000))
        let note = #"{"id":"n1","title":"Groceries","tags":["home"],"folder":"f1"}"#
        return [
            Sample(
                label: "onboarding completed", key: "hasCompletedOnboarding", value: Data([1]),
                descriptor: DataDescriptor(kind: .preference, estimatedSize: 1)),
            Sample(
                label: "selected theme", key: "selectedTheme", value: Data("dark".utf8),
                descriptor: DataDescriptor(kind: .preference, estimatedSize: 4)),
            Sample(
                label: "window layout (flat)", key: "windowLayout", value: Data(#"{"w":1280,"h":800}"#.utf8),
                descriptor: DataDescriptor(kind: .structured, estimatedSize: 20, isFlat: true)),
            Sample(
                label: "API token", key: "api/token", value: Data("tok_live_8c1f2a".utf8),
                descriptor: DataDescriptor(kind: .credential, estimatedSize: 15)),
            Sample(
                label: "note (relational)", key: "notes/n1", value: Data(note.utf8),
                descriptor: DataDescriptor(kind: .relational, estimatedSize: note.utf8.count, isQueried: true)),
            Sample(
                label: "exported report", key: "exports/report.pdf", value: pdfLike,
                descriptor: DataDescriptor(kind: .file, estimatedSize: pdfLike.count, contentType: "application/pdf")),
            Sample(
                label: "voice memo", key: "recordings/memo.wav", value: wav,
                descriptor: DataDescriptor(kind: .file, estimatedSize: wav.count, contentType: "audio/wav")),
            Sample(
                label: "cached feed (3 MiB pref)", key: "cachedFeed", value: Data(repeating: 0x7B, count: 3 << 20),
                descriptor: DataDescriptor(kind: .preference, estimatedSize: 3 << 20)),
        ]
    }

    func run() throws {
        var configuration = SelectorConfiguration()
        if let minimumOS { configuration.context.minimumOS = minimumOS }
        let temporary = self.root == nil
        let root = try self.root ?? Self.makeTemporaryRoot()
        defer { if temporary { try? FileManager.default.removeItem(atPath: root) } }

        // The demo's keyring is protected by a fixed passphrase; a real program asks for one or uses a key file.
        let storage = try Storage(
            root: root, selector: StorageSelector(configuration: configuration),
            secretsKey: .passphrase("strata demo passphrase"))
        print("Strata demo: each value goes through the selector to a tier.")
        print("store root: \(root)\(temporary ? " (temporary)" : "")")
        print("")
        for sample in Self.samples() {
            let selection = storage.select(sample.descriptor.sized(sample.value.count))
            print(
                "\(sample.label) [\(ByteCountText(sample.value.count))] -> \(selection.tier.rawValue) (\(selection.appleEquivalent), rule \(selection.ruleID))"
            )
            print("    why: \(selection.reason)")
            try storage.put(sample.value, for: sample.key, as: sample.descriptor)
            let back = try storage.data(for: sample.key)
            guard back == sample.value else {
                throw StorageError(
                    .corrupt, "the tier read back different bytes", tier: selection.tier, key: sample.key,
                    recovery: "Report this as a bug in Strata")
            }
            let backend = try storage.backend(for: selection.tier)
            print(
                "    stored under '\(sample.key)' by the \(backend.name) backend; read back \(back?.count ?? 0) bytes intact"
            )
        }
        print("")
        try Self.demonstrateCore(root: root)
        print("")
        print("stored \(Self.samples().count) of \(Self.samples().count) values; every tier answered.")
    }

    /// Shows the core primitives every tier stands on.
    static func demonstrateCore(root: String) throws {
        let lock = FileLock(path: root + "/demo.lock")
        let held = try lock.acquire(.exclusive, timeout: .seconds(5))
        let busy: Bool
        do {
            _ = try lock.acquire(.exclusive, timeout: .nonBlocking)
            busy = false
        } catch let error as StorageError where error.code == .lockUnavailable {
            busy = true
        }
        held.release()
        print("file lock: exclusive lock taken; a second taker was \(busy ? "refused" : "NOT refused"); released")
        let path = root + "/demo-atomic.txt"
        try AtomicFile.write(Data("first".utf8), to: path)
        try AtomicFile.write(Data("second".utf8), to: path)
        let content = try AtomicFile.read(path).map { String(decoding: $0, as: UTF8.self) } ?? "(missing)"
        print("atomic file: replaced twice with temp + fsync + rename; now holds '\(content)'")
        do {
            _ = try StoragePaths(root: root).path(for: "../escape", in: .files)
        } catch let error as StorageError {
            print("safe paths: '../escape' refused: \(error.message)")
        }
    }

    static func makeTemporaryRoot() throws -> String {
        let base =
            NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
        var template = Array((base + "/strata-demo-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StorageError.system(
                errno, "cannot create a temporary folder for the demo store", path: NSTemporaryDirectory())
        }
        return String(cString: made)
    }
}

extension DataDescriptor {
    /// The descriptor with its size raised to at least `count`, as `Storage.put` does.
    func sized(_ count: Int) -> DataDescriptor {
        var copy = self
        copy.estimatedSize = max(estimatedSize, count)
        return copy
    }
}
