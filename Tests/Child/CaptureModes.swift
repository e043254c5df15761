import Foundation
import Strata
import StrataTestSupport

/// The child modes of the capture and restore tests; `false` when `arguments` names none of them.
///
/// `capture-writer ROOT ID`: writes rounds n = 1, 2, … forever; each round puts `wID/defaults` (a preference,
/// flushed), `wID/records`, `wID/files` and `wID/secrets`, in that order, each the text `n,` repeated 64 times (a
/// torn value shows two numbers), then says `wrote n`.
///
/// `capture-mover ROOT COUNT`: moves keys `move/0` … `move/COUNT-1` around the tiers in rounds n = 1, 2, …
/// forever: in round n key i goes to tier `(i + n) % 4` of files, defaults, secrets, records, with the value
/// `i:n` (preferences flushed), then says `moved n`.
///
/// `restore-stall CAPTURE TARGET`: restores the capture in folder CAPTURE to TARGET, and after half of its files
/// says `stalled` and sleeps until killed.
func runCaptureMode(_ arguments: [String]) throws -> Bool {
    switch (arguments.first, arguments.count) {
    case ("capture-writer", 3):
        try runCaptureWriter(root: arguments[1], id: arguments[2])
        return true
    case ("capture-mover", 3):
        try runCaptureMover(root: arguments[1], count: Int(arguments[2]) ?? 8)
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
    (.defaults, DataDescriptor(kind: .preference, estimatedSize: 256, allowsPlaintext: true)),
    (.records, DataDescriptor(kind: .structured, estimatedSize: 256, isQueried: true, allowsPlaintext: true)),
    (
        .files,
        DataDescriptor(
            kind: .file, estimatedSize: 256, contentType: "application/octet-stream", allowsPlaintext: true)
    ),
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

/// The tiers a `capture-mover` child moves its keys around, in its order.
let captureMoverTiers: [Tier] = [.files, .defaults, .secrets, .records]

func runCaptureMover(root: String, count: Int) throws {
    let storage = try Storage(root: root)
    let descriptors = Dictionary(uniqueKeysWithValues: captureWriterDescriptors)
    var round = 1
    while true {
        for index in 0..<count {
            let tier = captureMoverTiers[(index + round) % captureMoverTiers.count]
            try storage.put(Data("\(index):\(round)".utf8), for: "move/\(index)", as: descriptors[tier]!)
            if tier == .defaults { try storage.backend(for: .defaults).flush() }
        }
        say("moved \(round)")
        round += 1
    }
}
