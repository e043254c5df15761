// `strata-bench-secrets --keyring-sizes [--rounds N] [--sizes 0,100,...]`: what a durable set of a 64-byte item costs as the keyring
// grows, with small items inside the manifest (the default) and with every item in a file of its own
// (`inlineItemLimit` 0), beside the raw atomic replace: every write rewrites and tags the whole manifest, so its
// size is what `SecretsConfiguration.inlineTotalLimit` bounds.
import BenchmarkKit
import Foundation
import StrataCore
import StrataSecrets

enum KeyringSizeSweep {
    /// Prints, for each keyring size and layout, the 10th percentile and the median time of a set over `rounds`
    /// rounds of 20 sets (the 10th percentile is what load disturbs least), and the manifest's size.
    /// - Parameter sizes: The keyring sizes, in the order run (file creation costs more after many frees on some
    ///   file systems: run them in both orders).
    static func run(rounds: Int, sizes: [Int]) throws {
        let root = try Bench.temporaryFolder("secrets-sizes")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let raw = try RawSecrets(folder: root + "/raw")
        let value = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let secret = Secret(Data(value))
        let layouts: [(String, SecretsConfiguration)] = [
            ("inside the manifest", SecretsConfiguration()),
            ("files only", SecretsConfiguration(inlineItemLimit: 0)),
        ]
        for size in sizes {
            for (layout, configuration) in layouts {
                let paths = try StoragePaths(root: root + "/\(size)-\(layout.hashValue)")
                let store = try SecretStore(
                    paths: paths, unlockingWith: .inMemory(Secret(Data(raw.key))), configuration: configuration)
                if size > 0 {
                    try store.set(
                        (0..<size).map {
                            SecretWrite(
                                Secret("token-\($0)-0123456789abcdef0123456789abcdef"), service: "fill",
                                account: "\($0)")
                        })
                }
                var strata: [Double] = []
                var baseline: [Double] = []
                for _ in 0..<rounds {
                    baseline.append(Bench.time { for index in 0..<20 { raw.set(value, name: "s\(index % 8)") } } / 20)
                    strata.append(
                        try Bench.time {
                            for index in 0..<20 { try store.set(secret, service: "bench", account: "s\(index % 8)") }
                        } / 20)
                }
                let at = { (times: [Double], fraction: Double) in
                    times.sorted()[Int(Double(times.count) * fraction)] * 1e6
                }
                let manifest =
                    (try? FileManager.default.attributesOfItem(atPath: store.directory + "/items.manifest"))?[
                        .size] as? Int ?? 0
                print(
                    String(
                        format: "keyring of %4d items, %@ (manifest %d KiB): set 64 B p10 %.0f µs (raw %.0f, %.2f×), "
                            + "median %.0f µs (raw %.0f, %.2f×)", size, layout, manifest >> 10, at(strata, 0.1),
                        at(baseline, 0.1), at(baseline, 0.1) / at(strata, 0.1), at(strata, 0.5), at(baseline, 0.5),
                        at(baseline, 0.5) / at(strata, 0.5)))
            }
        }
    }
}
