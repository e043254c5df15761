// The program that tests start as a separate process, to hold locks across processes and to be killed with
// SIGKILL in the middle of writes. Each command prints one line per step and flushes it.
import Foundation
import StrataCore
import StrataDefaults
import StrataFiles
import StrataLocalFiles
import StrataRecords
import StrataSecrets
import StrataSystem
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A 32-byte key from 64 hex characters.
func key(_ hex: String) -> Secret {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return Secret(Data(bytes))
}

let arguments = Array(CommandLine.arguments.dropFirst())
/// Children do not watch for others' changes: they only write.
let quiet = DefaultsConfiguration(watchesExternalChanges: false)
do {
    switch arguments.first {
    case "hold-lock":
        // hold-lock PATH shared|exclusive: take the lock, say so, and keep it until killed.
        let mode: FileLock.Mode = arguments[2] == "shared" ? .shared : .exclusive
        let held = try FileLock(path: arguments[1]).acquire(mode, timeout: .seconds(30))
        say("locked \(held.mode)")
        while true { sleep(60) }
    case "try-lock":
        // try-lock PATH shared|exclusive [SECONDS]: one non-blocking attempt, or a wait of at most SECONDS; prints
        // `acquired` or the error code.
        let mode: FileLock.Mode = arguments[2] == "shared" ? .shared : .exclusive
        let timeout: FileLock.Timeout = arguments.count > 3 ? .seconds(Double(arguments[3]) ?? 0) : .nonBlocking
        do {
            let held = try FileLock(path: arguments[1]).acquire(mode, timeout: timeout)
            say("acquired")
            held.release()
        } catch let error as StorageError {
            say("refused \(error.code)")
        }
    case "atomic-replace":
        // atomic-replace PATH SIZE START: write versions START, START+1, ... forever, saying `wrote N` after each.
        let path = arguments[1]
        let size = Int(arguments[2]) ?? 65536
        var version = Int(arguments[3]) ?? 1
        while true {
            try AtomicFile.write(VersionedContent.make(version: version, size: size), to: path)
            say("wrote \(version)")
            version += 1
        }
    case "defaults-increment":
        // defaults-increment ROOT SUITE KEY COUNT: COUNT atomic read-modify-writes of an integer key.
        let store = try DefaultsStore(suite: arguments[2], root: arguments[1], configuration: quiet)
        let key = DefaultsKey<Int>(arguments[3], default: 0)
        for _ in 0..<(Int(arguments[4]) ?? 1) { try store.update(key) { $0 + 1 } }
        say("done")
    case "defaults-ack-loop":
        // defaults-ack-loop ROOT SUITE START: set key-N = N and flush, saying `ack N` after each durable write.
        let store = try DefaultsStore(suite: arguments[2], root: arguments[1], configuration: quiet)
        var index = Int(arguments[3]) ?? 0
        while true {
            try store.set(.integer(Int64(index)), forKey: "key-\(index)")
            try store.set(.string(String(repeating: "x", count: index % 500)), forKey: "padding")
            try store.flush()
            say("ack \(index)")
            index += 1
        }
    case "defaults-set":
        // defaults-set ROOT SUITE KEY VALUE [immediate|coalesced]: set a string and exit normally.
        var configuration = quiet
        configuration.durability =
            arguments.count > 5 && arguments[5] == "immediate" ? .durable : .coalesced(.seconds(30))
        let store = try DefaultsStore(suite: arguments[2], root: arguments[1], configuration: configuration)
        try store.set(.string(arguments[4]), forKey: arguments[3])
        say("set")
        // No flush: a coalesced store must still write at normal exit.
        exit(0)
    case "race-writes":
        // race-writes ROOT KEYHEX COUNT: COUNT defaults flushes and COUNT secret sets in a group-shared root that
        // a neighbour is swapping folders in; prints `done ok=N typed=M` (typed = refused with a StorageError).
        let paths = try StoragePaths(root: arguments[1], sharing: .group)
        var (written, refused) = (0, 0)
        for index in 0..<(Int(arguments[3]) ?? 1) {
            do {
                let defaults = try DefaultsStore(
                    paths: paths,
                    configuration: DefaultsConfiguration(durability: .durable, watchesExternalChanges: false))
                try defaults.set(.string("value \(index)"), forKey: "race")
                written += 1
            } catch is StorageError {
                refused += 1
            }
            do {
                let secrets = try SecretStore(keyring: "kr", paths: paths, unlockingWith: .inMemory(key(arguments[2])))
                try secrets.set("secret \(index)", service: "svc", account: "acct")
                written += 1
            } catch is StorageError {
                refused += 1
            }
        }
        say("done ok=\(written) typed=\(refused)")
    case "secrets-set-loop":
        // secrets-set-loop ROOT KEYHEX START: set service/account to "value N" over and over, saying `ack N`.
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])))
        var index = Int(arguments[3]) ?? 0
        while true {
            try store.set("value \(index)", service: "svc", account: "acct")
            say("ack \(index)")
            index += 1
        }
    case "secrets-write-accounts":
        // secrets-write-accounts ROOT KEYHEX PREFIX COUNT: store COUNT accounts PREFIX-0... in the shared keyring.
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])))
        for index in 0..<(Int(arguments[4]) ?? 1) {
            try store.set("secret \(arguments[3])-\(index)", service: "shared", account: "\(arguments[3])-\(index)")
        }
        say("done")
    case "secrets-get":
        // secrets-get ROOT KEYHEX SERVICE ACCOUNT: print the value, `absent`, or the error code.
        let store = try SecretStore(
            paths: StoragePaths(root: arguments[1]), unlockingWith: .inMemory(key(arguments[2])))
        do {
            say(try store.get(service: arguments[3], account: arguments[4])?.stringValue ?? "absent")
        } catch let error as StorageError {
            say("error \(error.code)")
        }
    case "records-increment":
        // records-increment LOCATION COUNT: COUNT transactions, each reading and incrementing one counter record.
        // LOCATION is a SQLite file or `postgres:<schema>` (see RecordStoreLocation).
        let store = try RecordStoreLocation.open(arguments[1])
        let counters = try store.collection(Counter.self, named: "counters")
        say("opened")  // So that a run that hangs tells whether it hung opening the store or in a transaction.
        // How many transactions needed how many runs of their closure, reported as `done runs 1:240,2:10`.
        var runsCounted: [Int: Int] = [:]
        for _ in 0..<(Int(arguments[2]) ?? 1) {
            var runs = 0
            try store.write { transaction in
                runs += 1
                var counter = try transaction(counters).get(id: "shared") ?? Counter(id: "shared", value: 0)
                counter.value += 1
                try transaction(counters).upsert(counter)
            }
            runsCounted[runs, default: 0] += 1
        }
        say(
            "done runs " + runsCounted.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
        )
    case "records-observe":
        // records-observe LOCATION: say `ready` once observing the counters, then `change COLLECTION external`
        // for the first commit another process makes, and exit.
        let store = try RecordStoreLocation.open(
            arguments[1], configuration: RecordsConfiguration(observationIntervalMilliseconds: 20))
        let counters = try store.collection(Counter.self, named: "counters")
        let stream = counters.changes()
        say("ready")
        let done = DispatchSemaphore(value: 0)
        Task.detached {  // not on the main actor, which waits below
            for await change in stream where change.isExternal {
                say("change \(change.collection ?? "unknown") external")
                break
            }
            done.signal()
        }
        done.wait()
    case "records-pair-loop":
        // records-pair-loop LOCATION: transactions n = 1, 2, … forever, each setting counter `a` of collection
        // `counters` and counter `b` of collection `mirror` to n together, saying `pair n` after each commit.
        let store = try RecordStoreLocation.open(arguments[1])
        let counters = try store.collection(Counter.self, named: "counters")
        let mirror = try store.collection(Counter.self, named: "mirror")
        var round = 1
        while true {
            try store.write { transaction in
                try transaction(counters).upsert(Counter(id: "a", value: round))
                try transaction(mirror).upsert(Counter(id: "b", value: round))
            }
            say("pair \(round)")
            round += 1
        }
    case "records-batch-loop":
        // records-batch-loop LOCATION START: transactions of 20 records each (batch N), saying `committed N`.
        let store = try RecordStoreLocation.open(arguments[1])
        let items = try store.collection(BatchItem.self, named: "items")
        var batch = Int(arguments[2]) ?? 0
        while true {
            try store.write { transaction in
                for index in 0..<20 {
                    try transaction(items).insert(
                        BatchItem(id: "\(batch)-\(index)", batch: batch, payload: String(repeating: "p", count: 200)))
                }
            }
            say("committed \(batch)")
            batch += 1
        }
    case "files-writer":
        // files-writer LOCATION KEY SIZE START: replace KEY with versions START, START+1, ... saying `wrote N`.
        // LOCATION is a `FileStoreLocation`'s: a POSIX store's root, or `s3:PREFIX` on the test gateway.
        let store = try FileStoreLocation.open(arguments[1])
        let size = Int(arguments[3]) ?? 65536
        var version = Int(arguments[4]) ?? 1
        while true {
            try store.write(VersionedContent.make(version: version, size: size), to: arguments[2])
            say("wrote \(version)")
            version += 1
        }
    case "files-churn":
        // files-churn ROOT COUNT MARKERS: COUNT rounds of an update of one of four hot counters (checking with an
        // O_EXCL marker file in MARKERS that no other process is inside the same key's exclusive section) and
        // of a write and delete of a fresh key; prints `overlap KEY` for any overlap, then `done`.
        let store = try FileStore(root: arguments[1], configuration: FilesConfiguration(lockTimeout: .seconds(60)))
        for round in 0..<(Int(arguments[2]) ?? 1) {
            let key = "hot-\(round % 4)"
            try store.update(key) { current in
                let marker = arguments[3] + "/" + key
                let fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0o600)
                if fd < 0 { say("overlap \(key)") } else { close(fd) }
                defer { unlink(marker) }
                let value = current.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                return Data(String(value + 1).utf8)
            }
            let fresh = "cold/\(getpid())-\(round)"
            try store.write(Data("x".utf8), to: fresh)
            try store.delete(fresh)
        }
        say("done")
    case "files-hold-key":
        // files-hold-key ROOT KEY: take KEY's exclusive lock (inside an update that never ends), say `holding`, and
        // keep it until killed (the update is never committed).
        let store = try FileStore(root: arguments[1])
        try store.update(arguments[2]) { _ in
            say("holding")
            while true { sleep(60) }
        }
    case "files-counters":
        // files-counters LOCATION COUNT: COUNT rounds of an update of one of four hot counters, an append of one
        // line to a shared log, and a write and delete of a fresh key, on any engine; then `done`.
        let store = try FileStoreLocation.open(arguments[1])
        for round in 0..<(Int(arguments[2]) ?? 1) {
            try store.update("hot-\(round % 4)") { current in
                let value = current.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                return Data(String(value + 1).utf8)
            }
            try store.append(Data("\(getpid()) \(round)\n".utf8), to: "log.txt")
            let fresh = "cold/\(getpid())-\(round)"
            try store.write(Data("x".utf8), to: fresh)
            try store.delete(fresh)
        }
        say("done")
    case "files-reader":
        // files-reader LOCATION KEY SIZE COUNT: read KEY COUNT times; print `torn` on any read that is not one
        // whole version, then `done`.
        let store = try FileStoreLocation.open(arguments[1])
        let size = Int(arguments[3]) ?? 65536
        for _ in 0..<(Int(arguments[4]) ?? 100) {
            guard let data = try store.readIfPresent(arguments[2]) else { continue }
            if VersionedContent.version(of: data, size: size) == nil { say("torn \(data.count)") }
        }
        say("done")
    case "files-import-gzip":
        // files-import-gzip ROOT SOURCE KEY: import a gzip file (a FIFO lets the test stall it midway), then `done`.
        try FileStore(root: arguments[1]).importGzip(from: arguments[2], to: arguments[3])
        say("done")
    case "files-import-faulty":
        // files-import-faulty ROOT ARCHIVE CALL STEP [TIMES]: import a zip with EIO injected at the STEP-th CALL
        // under ROOT, and the TIMES-1 calls after it (the injector is global to a process, so each plan runs in
        // its own); prints `refused ERRNO` and the error's recovery on the next line, or `imported FAULTS` (how
        // many faults were injected: 0 once STEP is past the last call).
        let store = try FileStore(root: arguments[1], configuration: FilesConfiguration(durability: .atomicOnly))
        FaultInjector.shared.inject(
            .error(EIO), on: SystemCall(rawValue: arguments[3])!, pathContaining: arguments[1],
            after: Int(arguments[4]) ?? 0, times: arguments.count > 5 ? Int(arguments[5]) ?? 1 : 1)
        do {
            try store.importZip(from: arguments[2])
            say("imported \(FaultInjector.shared.injectedCount)")
        } catch let error as StorageError {
            say("refused \(error.errno ?? 0)")
            say(error.recovery ?? "")
        }
    case "defaults-open":
        // defaults-open ROOT SUITE: open the suite (a hostile file must not hang or crash this), then say
        // `recoveries N` and `keys N`.
        let store = try DefaultsStore(suite: arguments[2], root: arguments[1], configuration: quiet)
        say("recoveries \(store.recoveries.count)")
        say("keys \(store.allKeys.count)")
    case "plist-deep-walks":
        // plist-deep-walks DEPTH [xml|binary] [LIMIT]: on a thread with a 512 KiB stack (a secondary thread's on
        // macOS), read a plist of arrays nested DEPTH deep (XML by default; read with maximumDepth LIMIT, the
        // default unless given), then encode, compare, hash and measure it, and describe it up to the default
        // depth. Says `refused` or `walked`; a stack overflow kills the child.
        let depth = Int(arguments[1]) ?? 0
        let document: Data
        if arguments.count > 2, arguments[2] == "binary" {
            var table = BinaryPropertyList.ObjectTable()
            var chain = table.add(.bool(true))
            for _ in 0..<depth { chain = table.addArray([chain]) }
            document = table.encoded(top: chain)
        } else {
            document = Data(
                ("<plist>" + String(repeating: "<array>", count: depth) + "<true/>"
                    + String(repeating: "</array>", count: depth) + "</plist>").utf8)
        }
        let limits = PropertyListLimits(
            maximumDepth: arguments.count > 3 ? Int(arguments[3]) ?? 0 : PropertyListLimits.defaultMaximumDepth)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            let value: PropertyListValue
            do {
                value = try PropertyListFormat.decode(document, limits: limits)
            } catch {
                return say("refused \(error)")
            }
            let copy = try? PropertyListFormat.decode(BinaryPropertyList.encode(value), limits: limits)
            let again = try? PropertyListFormat.decode(XMLPropertyList.encode(value), limits: limits)
            var hasher = Hasher()
            value.hash(into: &hasher)
            _ = hasher.finalize()
            let same = copy == value && again == value
            _ = value.encodedSizeEstimate
            // The default description reflects (Mirror) once a level, about 1.5 KiB of stack a level.
            if depth <= PropertyListLimits.defaultMaximumDepth { _ = "\(value)".count }
            say(same ? "walked" : "differ")
        }
        thread.stackSize = 512 << 10
        thread.start()
        done.wait()
    case "defaults-set-hostile":
        // defaults-set-hostile ROOT deep|bomb: set a value built in memory, nested 10,000 deep (deeper, releasing
        // it alone would overflow the stack) or sharing its subtrees (8 references per level, 30 levels); say
        // `set` or `refused CODE`.
        let store = try DefaultsStore(suite: "hostile", root: arguments[1], configuration: quiet)
        var value = PropertyListValue.string("boom")
        if arguments[2] == "deep" {
            for _ in 0..<10_000 { value = .array([value]) }
        } else {
            for _ in 0..<30 { value = .array(Array(repeating: value, count: 8)) }
        }
        do {
            try store.set(value, forKey: "hostile")
            say("set")
        } catch let error as StorageError {
            say("refused \(error.code)")
        }
    default:
        if try runStorageMode(arguments) || runStorageStallMode(arguments) || runCaptureMode(arguments)
            || runCaptureWindowMode(arguments) || runRestoreMode(arguments)
            || runSecretsMode(arguments)
            || runSharedSuiteMode(arguments) || runSecretsRotationMode(arguments) || runSecretsBatchMode(arguments)
            || runSecretsInlineMode(arguments)
            || runBackupMode(arguments) || runS3Mode(arguments) || runRecordsTruncationMode(arguments)
            || runFleetMode(arguments)
        {
            break
        }
        FileHandle.standardError.write(
            Data("usage: strata-test-child hold-lock|try-lock|atomic-replace|defaults-... \n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("strata-test-child: \(error)\n".utf8))
    exit(1)
}
