import Foundation
import Strata
import StrataTestSupport

/// The child modes of the capture and restore tests; `false` when `arguments` names none of them.
///
/// `capture-writer ROOT ID`: writes rounds n = 1, 2, … forever; each round puts `wID/defaults` (a preference,
/// flushed), `wID/records`, `wID/files` and `wID/secrets`, in that order, each the text `n,` repeated 64 times (a
/// torn value shows two numbers), then says `wrote n`.
///
/// `restore-stall CAPTURE TARGET`: restores the capture in folder CAPTURE to TARGET, and after half of its files
/// says `stalled` and sleeps until killed.
func runCaptureMode(_ arguments: [String]) throws -> Bool {
    switch (arguments.first, arguments.count) {
    case ("capture-writer", 3):
        try runCaptureWriter(root: arguments[1], id: arguments[2])
        return true
    case ("restore-stall", 3):
        let capture = try FolderCapture(folder: arguments[1])
        try Storage.restore(from: StallingSource(inner: capture, stallAfter: capture.files.count / 2), to: arguments[2])
        return true
    default:
        return false
    }
}

/// The descriptor that sends a writer's value to each tier.
let captureWriterDescriptors: [(Tier, DataDescriptor)] = [
    (.defaults, DataDescriptor(kind: .preference, estimatedSize: 256)),
    (.records, DataDescriptor(kind: .structured, estimatedSize: 256, isQueried: true)),
    (.files, DataDescriptor(kind: .file, estimatedSize: 256, contentType: "application/octet-stream")),
    (.secrets, DataDescriptor(kind: .credential, estimatedSize: 256)),
]

func runCaptureWriter(root: String, id: String) throws {
    let storage = try Storage(root: root)
    var round = 1
    while true {
        let value = Data(String(repeating: "\(round),", count: 64).utf8)
        for (tier, descriptor) in captureWriterDescriptors {
            try storage.put(value, for: "w\(id)/\(tier)", as: descriptor)
            if tier == .defaults { try storage.backend(for: .defaults).flush() }
        }
        say("wrote \(round)")
        round += 1
    }
}
