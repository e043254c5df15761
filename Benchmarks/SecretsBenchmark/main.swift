// StrataSecrets against raw libsodium calls doing the same work (encrypt + write + fsync, read + decrypt),
// same bytes, same run. Prints per-operation times and ratios (raw time / Strata time: 1.0 means as fast).
//
//   swift run -c release strata-bench-secrets [--quick]
import BenchmarkKit
import CSodium
import Foundation
import StrataCore
import StrataSecrets

let quick = CommandLine.arguments.contains("--quick")
guard sodium_init() >= 0 else { fatalError("libsodium failed to initialize") }

let root = try Bench.temporaryFolder("secrets")
defer { try? FileManager.default.removeItem(atPath: root) }
let paths = try StoragePaths(root: root + "/store")
let rawFolder = root + "/raw"
try FileManager.default.createDirectory(atPath: rawFolder, withIntermediateDirectories: true)

// Unlock time at the default (interactive) Argon2id cost: create, then open with the passphrase.
var unlock = Double.infinity
_ = try SecretStore(keyring: "kdf", paths: paths, unlockingWith: .passphrase("benchmark passphrase"))
for _ in 0..<(quick ? 2 : 5) {
    unlock = min(
        unlock,
        try Bench.time {
            _ = try SecretStore(keyring: "kdf", paths: paths, unlockingWith: .passphrase("benchmark passphrase"))
        })
}

let key = (0..<32).map { UInt8($0) }
let store = try SecretStore(paths: paths, unlockingWith: .inMemory(Secret(Data(key))))

/// The raw baseline: seal with XChaCha20-Poly1305 under a random nonce, write nonce + ciphertext, fsync.
func rawSet(_ value: [UInt8], path: String) {
    var nonce = [UInt8](repeating: 0, count: 24)
    randombytes_buf(&nonce, 24)
    var sealed = [UInt8](repeating: 0, count: value.count + 16)
    var length: UInt64 = 0
    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
        &sealed, &length, value, UInt64(value.count), nil, 0, nil, nonce, key)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = nonce.withUnsafeBytes { write(fd, $0.baseAddress, 24) }
    _ = sealed.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
}

/// The raw baseline: read the file, open the box.
func rawGet(path: String, size: Int) -> [UInt8] {
    let file = FileManager.default.contents(atPath: path)!
    var plain = [UInt8](repeating: 0, count: size)
    var length: UInt64 = 0
    file.withUnsafeBytes { bytes in
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        _ = crypto_aead_xchacha20poly1305_ietf_decrypt(
            &plain, &length, nil, base + 24, UInt64(bytes.count - 24), nil, 0, base, key)
    }
    return plain
}

var rows: [Comparison] = []
for (size, label, count) in [(64, "64 B", quick ? 100 : 400), (1 << 20, "1 MiB", quick ? 10 : 40)] {
    let value = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let secret = Secret(Data(value))
    let rawPath = rawFolder + "/item-\(size)"
    let strataSet = try Bench.best(of: 3) {
        for index in 0..<count { try store.set(secret, service: "bench", account: "a\(index % 8)-\(size)") }
    }
    let rawSetTime = Bench.best(of: 3) { for _ in 0..<count { rawSet(value, path: rawPath) } }
    rows.append(
        Comparison(
            "durable set \(label)", operations: count, strata: strataSet, baseline: rawSetTime,
            target: size == 64 ? 0.8 : 0.9))
    var sink = 0
    let gets = count * (size == 64 ? 20 : 2)
    let strataGet = try Bench.best(of: 3) {
        for _ in 0..<gets { sink &+= try store.get(service: "bench", account: "a0-\(size)")!.count }
    }
    let rawGetTime = Bench.best(of: 3) { for _ in 0..<gets { sink &+= rawGet(path: rawPath, size: size).count } }
    rows.append(
        Comparison(
            "warm get \(label)", operations: gets, strata: strataGet, baseline: rawGetTime,
            target: size == 64 ? 0.8 : 0.9))
    if sink == 42 { print("") }
}

print("StrataSecrets vs raw libsodium (ratio = raw time / Strata time; 1.0 = as fast)\(quick ? " (quick)" : "")")
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
