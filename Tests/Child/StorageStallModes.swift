import Foundation
import Strata

/// The child mode that stops in the middle of a move and waits to be killed; `false` when `arguments` does not
/// name it.
///
/// `storage-stall ROOT write`: puts key `stall` as a preference (`old`), then as a file (`new`), and stops
/// once the new copy is in files, before the move is recorded. `storage-stall ROOT remove`: puts `stall` as a
/// file (`old`), then as a preference (`new`), and stops after the move is recorded, before the old copy in files
/// is removed. `storage-stall ROOT remove TEXT`: the same, with TEXT as the old value and the new one a credential
/// (the old copy is to be erased). Each says `stalled` and sleeps until killed.
func runStorageStallMode(_ arguments: [String]) throws -> Bool {
    if arguments.first == "storage-put-wait", arguments.count == 4 {
        // storage-put-wait ROOT KEY VALUE: puts VALUE as a preference, says `put`, and lives two more seconds
        // (the defaults tier writes its suite after its usual delay meanwhile).
        try Storage(root: arguments[1]).put(
            Data(arguments[3].utf8), for: arguments[2], as: DataDescriptor(kind: .preference, estimatedSize: 0))
        say("put")
        sleep(2)
        return true
    }
    if arguments.first == "storage-put-late", arguments.count == 5 {
        try runLateDefaultsWrite(root: arguments[1], key: arguments[2], value: arguments[3], go: arguments[4])
        return true
    }
    guard arguments.first == "storage-stall", (3...4).contains(arguments.count),
        let step = StallingBackend.Step(rawValue: arguments[2])
    else { return false }
    let storage = try Storage(root: arguments[1])
    let paths = storage.paths
    storage.registry.register(.files, name: "filesystem") { _ in
        StallingBackend(inner: try FileStore(paths: paths), step: step)
    }
    let preference = DataDescriptor(kind: .preference, estimatedSize: 3)
    let file = DataDescriptor(kind: .file, estimatedSize: 3, contentType: "application/pdf")
    // With a fourth argument (`remove` only), the old value is that text in files and the new one a credential.
    let plaintext = arguments.count == 4 ? arguments[3] : nil
    try storage.put(Data((plaintext ?? "old").utf8), for: "stall", as: step == .afterWrite ? preference : file)
    // No flush here: a preference put is acknowledged before its suite is written (the tier coalesces writes),
    // and the move itself must make the old copy durable before it starts.
    let new =
        plaintext != nil ? DataDescriptor(kind: .credential, estimatedSize: 3) : step == .afterWrite ? file : preference
    try storage.put(Data("new".utf8), for: "stall", as: new)
    say("the move finished without stalling")
    return true
}

/// `storage-put-late ROOT KEY VALUE GO`: puts VALUE as a preference through a defaults tier whose writes are delayed
/// a minute, says `put`, waits (up to a minute) for the file GO to exist, then makes its delayed write now (as the
/// coalescing timer would), says `written` and exits. The write is certainly later than whatever the other process
/// did to the key before it created GO.
func runLateDefaultsWrite(root: String, key: String, value: String, go: String) throws {
    let storage = try Storage(root: root)
    var configuration = Storage.defaultsConfiguration(storage.configuration)
    configuration.durability = .coalesced(.seconds(60))
    let (paths, suite, late) = (storage.paths, storage.configuration.defaults.suite, configuration)
    storage.registry.register(.defaults, name: "plist") { _ in
        try DefaultsStore(suite: suite, paths: paths, configuration: late)
    }
    try storage.put(Data(value.utf8), for: key, as: DataDescriptor(kind: .preference, estimatedSize: 0))
    say("put")
    for _ in 0..<600 where !FileManager.default.fileExists(atPath: go) { usleep(100_000) }
    try storage.backend(for: .defaults).flush()
    say("written")
}
