// StrataSecrets against raw libsodium calls doing the same work, same bytes, same run: a durable set is sealing
// plus the same atomic replace Strata makes (temporary file, fsync, rename, folder fsync — what a kill cannot
// tear); a warm get is reading the file plus opening the box. Then a batch of 1,000 items against 1,000 single
// sets. Prints per-operation times and ratios (raw time / Strata time: 1.0 means as fast); each side runs
// `--rounds N` times, alternating, and keeps its best.
//
//   swift run -c release strata-bench-secrets [--quick] [--rounds N]
//   strata-bench-secrets --profile set|get|fresh-get|batch [--raw] [--size BYTES] [--keyring N]   # only that operation
//                               (of a BYTES value, 64 by default; in a keyring holding N other small items, 0 by
//                               default), for callgrind and strace -c
//   strata-bench-secrets --stages [--rounds N]   # a batch of 1,000, timed (new items, replaced items)
//   strata-bench-secrets --set-stages [--rounds N]   # a 1 MiB set, timed, beside the raw replace
//                               (the steps within either: `perf record -g`, see Documentation/Benchmarks.md)
//   strata-bench-secrets --flush [--dirty]   # the ways to flush an item and its manifest together (FlushStrategy)
//   strata-bench-secrets --keyring-sizes [--rounds N] [--sizes 0,100,...]   # a set's cost by keyring size
import BenchmarkKit
import CSodium
import Foundation
import StrataCore
import StrataSecrets

/// The raw baseline's writes and reads: libsodium's XChaCha20-Poly1305 and an atomic replace, no more.
struct RawSecrets {
    let key = (0..<32).map { UInt8($0) }
    let folder: String
    let folderFD: Int32

    init(folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        folderFD = open(folder, O_RDONLY | O_DIRECTORY)
    }

    /// Seals `value` under a random nonce and replaces `name` with nonce + ciphertext: temporary file, fsync,
    /// rename, folder fsync.
    func set(_ value: [UInt8], name: String) {
        var nonce = [UInt8](repeating: 0, count: 24)
        randombytes_buf(&nonce, 24)
        var sealed = [UInt8](repeating: 0, count: value.count + 16)
        var length: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &sealed, &length, value, UInt64(value.count), nil, 0, nil, nonce, key)
        let temporary = folder + "/.tmp-" + name
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        _ = nonce.withUnsafeBytes { write(fd, $0.baseAddress, 24) }
        _ = sealed.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        rename(temporary, folder + "/" + name)
        fsync(folderFD)
    }

    /// Reads the file and opens the box.
    func get(name: String, size: Int) -> [UInt8] {
        let file = FileManager.default.contents(atPath: folder + "/" + name)!
        var plain = [UInt8](repeating: 0, count: size)
        var length: UInt64 = 0
        file.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            _ = crypto_aead_xchacha20poly1305_ietf_decrypt(
                &plain, &length, nil, base + 24, UInt64(bytes.count - 24), nil, 0, base, key)
        }
        return plain
    }
}

/// A temporary folder (the caller removes it) holding the raw baseline's folder and a keyring unlocked by the
/// baseline's key, libsodium initialized.
func rawAndStore(_ name: String) throws -> (root: String, raw: RawSecrets, store: SecretStore) {
    guard sodium_init() >= 0 else { fatalError("libsodium failed to initialize") }
    let root = try Bench.temporaryFolder(name)
    let raw = try RawSecrets(folder: root + "/raw")
    let store = try SecretStore(
        paths: try StoragePaths(root: root + "/store"), unlockingWith: .inMemory(Secret(Data(raw.key))))
    return (root, raw, store)
}

/// Runs one kind of operation, Strata's (or with `--raw` the baseline's), and nothing else: no unlock at the
/// default Argon2id cost, no timing, so `valgrind --tool=callgrind` and `strace -c -f` count that operation alone.
/// The word after `flag` on the command line, if any.
func argument(_ flag: String) -> String? {
    CommandLine.arguments.firstIndex(of: flag).flatMap {
        $0 + 1 < CommandLine.arguments.count ? CommandLine.arguments[$0 + 1] : nil
    }
}

func profile(_ operation: String, raw useRaw: Bool, size: Int) throws {
    let (root, raw, store) = try rawAndStore("secrets-profile")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let value = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let secret = Secret(Data(value))
    let count = operation == "batch" ? 1000 : 100
    // The items exist before the operation measured: a set replaces, a get reads one that is there, unchanged
    // for longer than a store needs to trust its stamp (see the warm gets in run()); a fresh-get reads it just after
    // its set.
    let others = Int(argument("--keyring") ?? "0") ?? 0
    if others > 0 {
        try store.set(
            (0..<others).map {
                SecretWrite(Secret("token-\($0)-0123456789abcdef0123456789abcdef"), service: "fill", account: "\($0)")
            })
    }
    raw.set(value, name: "a0")
    try store.set(secret, service: "bench", account: "a0")
    if operation == "get" { Thread.sleep(forTimeInterval: SecretStore.settlingTime + 0.1) }
    var sink = 0
    switch operation {
    case "set" where useRaw: for _ in 0..<count { raw.set(value, name: "a0") }
    case "set": for _ in 0..<count { try store.set(secret, service: "bench", account: "a0") }
    case "get" where useRaw, "fresh-get" where useRaw:
        for _ in 0..<count * 100 { sink &+= raw.get(name: "a0", size: size).count }
    case "get", "fresh-get":
        for _ in 0..<count * 100 { sink &+= try store.get(service: "bench", account: "a0")!.count }
    case "batch":
        let batch = (0..<count).map {
            SecretWrite(Secret("token-\($0)-0123456789abcdef0123456789abcdef"), service: "batch", account: "user-\($0)")
        }
        if useRaw {
            for write in batch { try store.set(write.value, service: write.service, account: write.account) }
        } else {
            try store.set(batch)
        }
    default: fatalError("--profile set|get|fresh-get|batch")
    }
    if sink == 42 { print("") }
}

/// `--stages`: a batch of 1,000, for new items and for items replaced, beside 1,000 single sets replacing the same
/// items, over `--rounds N` rounds (new accounts each round). Run it under `perf record -g` for the steps within.
func stages() throws {
    guard sodium_init() >= 0 else { fatalError("libsodium failed to initialize") }
    let root = try Bench.temporaryFolder("secrets-stages")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let key = Secret(Data((0..<32).map { UInt8($0) }))
    let store = try SecretStore(paths: try StoragePaths(root: root + "/store"), unlockingWith: .inMemory(key))
    for round in 0..<Bench.rounds {
        let batch = (0..<1000).map {
            SecretWrite(
                Secret("token-\($0)-0123456789abcdef0123456789abcdef"), service: "batch", account: "r\(round)-\($0)")
        }
        for kind in ["new", "replacing"] {
            let start = ContinuousClock.now
            try store.set(batch)
            print("round \(round) batch of 1,000 \(kind): \(ContinuousClock.now - start)")
        }
        let singles = try Bench.time {
            for write in batch { try store.set(write.value, service: write.service, account: write.account) }
        }
        print(String(format: "round \(round) 1,000 single sets replacing: %.0f ms", singles * 1000))
    }
}

/// `--set-stages`: a durable set of a 1 MiB item (too large for the manifest: a file and the manifest), over
/// `--rounds N` rounds of 10 replacing sets (a batch of one takes the very path of a set), beside the raw atomic
/// replace of the same value. Run it under `perf record -g` for the steps within.
func setStages() throws {
    let (root, raw, store) = try rawAndStore("secrets-set-stages")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let value = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let write = SecretWrite(Secret(Data(value)), service: "bench", account: "large")
    try store.set([write])
    for round in 0..<Bench.rounds {
        let rawTime = Bench.time { for _ in 0..<10 { raw.set(value, name: "large") } }
        let strata = try Bench.time { for _ in 0..<10 { try store.set([write]) } }
        print(String(format: "round \(round) set 1 MiB: %.2f ms (raw %.2f ms)", strata * 100, rawTime * 100))
    }
}

func run() throws {
    if CommandLine.arguments.contains("--stages") { return try stages() }
    if CommandLine.arguments.contains("--set-stages") { return try setStages() }
    if CommandLine.arguments.contains("--keyring-sizes") {
        let rounds = argument("--rounds").flatMap { Int($0) }
        let sizes = argument("--sizes").map { $0.split(separator: ",").compactMap { Int($0) } }
        return try KeyringSizeSweep.run(rounds: rounds ?? 5, sizes: sizes ?? [0, 100, 250, 500, 1000])
    }
    if CommandLine.arguments.contains("--flush") {
        return try FlushStrategy.compare(dirty: CommandLine.arguments.contains("--dirty"))
    }
    if let index = CommandLine.arguments.firstIndex(of: "--profile"), index + 1 < CommandLine.arguments.count {
        return try profile(
            CommandLine.arguments[index + 1], raw: CommandLine.arguments.contains("--raw"),
            size: argument("--size").flatMap { Int($0) } ?? 64)
    }
    let quick = CommandLine.arguments.contains("--quick")
    guard sodium_init() >= 0 else { fatalError("libsodium failed to initialize") }
    let root = try Bench.temporaryFolder("secrets")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let paths = try StoragePaths(root: root + "/store")
    let raw = try RawSecrets(folder: root + "/raw")

    // Unlock time at the default (interactive) Argon2id cost: create, then open with the passphrase.
    _ = try SecretStore(keyring: "kdf", paths: paths, unlockingWith: .passphrase("benchmark passphrase"))
    let unlock = try Bench.best(of: quick ? 2 : 5) {
        _ = try SecretStore(keyring: "kdf", paths: paths, unlockingWith: .passphrase("benchmark passphrase"))
    }

    let store = try SecretStore(paths: paths, unlockingWith: .inMemory(Secret(Data(raw.key))))
    var rows: [Comparison] = []
    var sink = 0
    let sizes = [(64, "64 B", quick ? 100 : 400), (1 << 20, "1 MiB", quick ? 10 : 40)]
    // The items the warm gets read, written first: a warm get reads an item that stayed unchanged for a while,
    // as a token read again and again does, in a keyring no one wrote to for a while. A store trusts the unchanged
    // stamps of an item file and of the manifest changed more than SecretStore.settlingTime ago, and reads a file
    // changed since (the gets just after a set: every set rewrites the manifest).
    for (size, _, _) in sizes {
        let value = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        raw.set(value, name: "warm-\(size)")
        try store.set(Secret(Data(value)), service: "bench", account: "warm-\(size)")
    }
    for (size, label, count) in sizes {
        let value = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let secret = Secret(Data(value))
        let set = try Bench.interleaved(
            baseline: { for index in 0..<count { raw.set(value, name: "a\(index % 8)-\(size)") } },
            strata: {
                for index in 0..<count { try store.set(secret, service: "bench", account: "a\(index % 8)-\(size)") }
            })
        let lastSet = Date()
        rows.append(
            Comparison(
                "durable set \(label)", operations: count, strata: set.strata, baseline: set.baseline, target: 0.9))
        let gets = count * (size == 64 ? 20 : 2)
        // Just after a set: the file's stamp is too fresh to vouch for it. A 64 B item lives in the manifest, which
        // the first get reads and holds open (a PinnedFile vouches for it from then on); a 1 MiB item's file is
        // read by every get.
        let fresh = try Bench.interleaved(
            baseline: { for _ in 0..<gets { sink &+= raw.get(name: "a0-\(size)", size: size).count } },
            strata: { for _ in 0..<gets { sink &+= try store.get(service: "bench", account: "a0-\(size)")!.count } })
        rows.append(
            Comparison(
                "get just after a set \(label)", operations: gets, strata: fresh.strata, baseline: fresh.baseline,
                target: size == 64 ? 0.8 : nil))
        Thread.sleep(forTimeInterval: max(0, SecretStore.settlingTime + 0.1 + lastSet.timeIntervalSinceNow))
        let get = try Bench.interleaved(
            baseline: { for _ in 0..<gets { sink &+= raw.get(name: "warm-\(size)", size: size).count } },
            strata: {
                for _ in 0..<gets { sink &+= try store.get(service: "bench", account: "warm-\(size)")!.count }
            })
        rows.append(
            Comparison(
                "warm get \(label)", operations: gets, strata: get.strata, baseline: get.baseline,
                target: size == 64 ? 0.8 : 0.9))
    }

    // A batch against the same items set one by one (Strata against Strata): one lock, one flush, one manifest.
    let batchSize = 1000  // The issue's size, quick or not.
    let batch = (0..<batchSize).map {
        SecretWrite(Secret("token-\($0)-0123456789abcdef0123456789abcdef"), service: "batch", account: "user-\($0)")
    }
    let batched = try Bench.interleaved(
        baseline: { for write in batch { try store.set(write.value, service: write.service, account: write.account) } },
        strata: { try store.set(batch) })
    rows.append(
        Comparison(
            "batch of \(batchSize) vs \(batchSize) single sets", operations: batchSize, strata: batched.strata,
            baseline: batched.baseline, target: 10))

    print(
        "StrataSecrets vs raw libsodium + atomic replace (ratio = raw time / Strata time; 1.0 = as fast), "
            + "best of \(Bench.rounds) alternating rounds\(quick ? " (quick)" : "")")
    print("")
    Comparison.printTable(rows, baselineName: "raw", ratioName: "ratio")
    let megabyte = Double(1 << 20)
    if let setRow = rows.first(where: { $0.name == "durable set 1 MiB" }),
        let getRow = rows.first(where: { $0.name == "warm get 1 MiB" })
    {
        print("")
        print(
            String(
                format: "1 MiB throughput: set %.0f MB/s (raw %.0f), get %.0f MB/s (raw %.0f)",
                megabyte * Double(setRow.operations) / setRow.strata / 1e6,
                megabyte * Double(setRow.operations) / setRow.baseline / 1e6,
                megabyte * Double(getRow.operations) / getRow.strata / 1e6,
                megabyte * Double(getRow.operations) / getRow.baseline / 1e6))
    }
    print(String(format: "unlock (Argon2id, 2 passes, 64 MiB, as created by default): %.0f ms", unlock * 1000))
    if sink == 42 { print("") }
}

try run()
