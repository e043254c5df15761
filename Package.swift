// swift-tools-version: 6.1
// Strata: the storage tiers iOS developers rely on, for Swift on Linux.

import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataCore", targets: ["StrataCore"]),
        .library(name: "StrataSystem", targets: ["StrataSystem"]),
        .library(name: "StrataConformance", targets: ["StrataConformance"]),
        .library(name: "StrataDefaults", targets: ["StrataDefaults"]),
        .library(name: "StrataSecrets", targets: ["StrataSecrets"]),
        .library(name: "StrataRecords", targets: ["StrataRecords", "StrataSQLite"]),
        .library(name: "StrataFiles", targets: ["StrataFiles", "StrataLocalFiles"]),
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .library(name: "StrataPostgresClient", targets: ["StrataPostgresClient"]),
        .library(name: "StrataBackup", targets: ["StrataBackup"]),
        .library(name: "StrataS3", targets: ["StrataS3"]),
        .executable(name: "strata", targets: ["strata"]),
        .plugin(name: "DefaultsKeysPlugin", targets: ["DefaultsKeysPlugin"]),
        .plugin(name: "StorageLintPlugin", targets: ["StorageLintPlugin"]),
    ],
    targets: [
        // System C libraries. Each is imported with `internal import` by the one tier that needs it.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // Whole-buffer deflate, several times zlib's speed: the export blocks (gzip members, zip entries).
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // HTTP for the S3 client.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // SHA-256 and HMAC-SHA-256 for the S3 client's signatures: OpenSSL's, with the processor's SHA instructions.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),

        // System headers Glibc's Swift module leaves out (extended attributes), the signal-safe terminal and
        // interrupt handlers, CRC-32C and atomics on shared memory. Imported by StrataSystem (and, for one prefetch
        // hint in the catalog's table, by StrataCatalog).
        .target(name: "CStrataSystem"),
        // The system layer: the system-call seam (`Sys`), descriptors and folders, locks on shared memory, paths.
        // It knows nothing of tiers, keys or the catalog. Fault injection is compiled in for debug builds only.
        .target(
            name: "StrataSystem", dependencies: ["CStrataSystem"],
            swiftSettings: [.define("STRATA_FAULT_INJECTION", .when(configuration: .debug))]),
        .target(name: "StrataCore", dependencies: ["StrataSystem"]),
        // The catalog: where every key put through a store lives (its log, table and locks) and the move protocol.
        .target(name: "StrataCatalog", dependencies: ["StrataCore", "StrataSystem", "CStrataSystem"]),
        .target(name: "StrataDefaults", dependencies: ["StrataCore", "StrataSystem"]),
        .target(name: "StrataSecrets", dependencies: ["StrataCore", "StrataSystem", "CSodium"]),
        .target(name: "StrataRecords", dependencies: ["StrataCore", "StrataSystem"]),
        .target(name: "StrataSQLite", dependencies: ["StrataCore", "StrataSystem", "StrataRecords", "CSQLite"]),
        .target(name: "StrataFiles", dependencies: ["StrataCore", "StrataSystem", "CZlib", "CDeflate"]),
        .target(name: "StrataLocalFiles", dependencies: ["StrataCore", "StrataSystem", "StrataFiles"]),
        // A PostgreSQL client over the system libpq (connections, pool, pipeline, COPY, cancel), for any engine that
        // stores on PostgreSQL; it knows no tier. The only importer of CLibPQ.
        .target(name: "StrataPostgresClient", dependencies: ["StrataCore", "StrataSystem", "CLibPQ"]),
        // The records tier on PostgreSQL: a second RecordEngine, on the client.
        .target(
            name: "StrataPostgres",
            dependencies: ["StrataCore", "StrataSystem", "StrataRecords", "StrataPostgresClient"]),
        // The catalog of a store shared by several machines, on PostgreSQL: a second CatalogEngine, on the client.
        .target(
            name: "StrataCatalogPostgres",
            dependencies: [
                "StrataCore", "StrataCatalog", "StrataPostgres", "StrataPostgresClient", "StrataRecords",
                "StrataDefaultsPostgres", "StrataSecretsPostgres",
            ]),
        // The defaults tier on PostgreSQL: the suites of a store that several machines share.
        .target(
            name: "StrataDefaultsPostgres",
            dependencies: ["StrataCore", "StrataDefaults", "StrataPostgres", "StrataPostgresClient"]),
        // The secrets tier on PostgreSQL: the keyrings of a store that several machines share, sealed on the machines.
        .target(
            name: "StrataSecretsPostgres",
            dependencies: ["StrataCore", "StrataSecrets", "StrataPostgres", "StrataPostgresClient"]),
        // The backup repository: content-defined chunks, deduplicated, compressed and sealed, in packs.
        .target(
            name: "StrataBackup",
            dependencies: ["StrataCore", "StrataSystem", "StrataSecrets", "StrataFiles", "StrataLocalFiles"]),
        // An S3 client (libcurl, SigV4 signed with OpenSSL's SHA-256 and HMAC), for the S3 files engine.
        .target(
            name: "StrataS3",
            dependencies: ["StrataCore", "StrataSystem", "StrataFiles", "CCurl", "CCrypto"]),
        .target(
            name: "Strata",
            dependencies: [
                "StrataCore", "StrataSystem", "StrataCatalog", "StrataCatalogPostgres", "StrataDefaults",
                "StrataDefaultsPostgres", "StrataSecrets", "StrataSecretsPostgres", "StrataRecords", "StrataSQLite",
                "StrataFiles", "StrataLocalFiles", "StrataPostgres", "StrataPostgresClient", "StrataBackup", "StrataS3",
            ]),
        .executableTarget(name: "strata", dependencies: ["Strata", "StrataSystem", "StrataLint"]),
        .target(name: "StrataConformance", dependencies: ["StrataCore"]),

        // Storage lint and keys generation: a shared library, the plugins' tools, and the plugins.
        .target(name: "StrataLint", dependencies: ["StrataDefaults", "StrataSystem"]),
        .executableTarget(name: "strata-lint", dependencies: ["StrataLint"]),
        .executableTarget(name: "strata-keygen", dependencies: ["StrataLint"]),
        .plugin(
            name: "DefaultsKeysPlugin", capability: .buildTool(), dependencies: ["strata-keygen"],
            path: "Plugins/DefaultsKeysPlugin"),
        .plugin(
            name: "StorageLintPlugin",
            capability: .command(
                intent: .custom(verb: "storage-lint", description: "Check Swift sources against the storage rules")),
            dependencies: ["strata-lint"], path: "Plugins/StorageLintPlugin"),
        .target(
            name: "KeysSample", dependencies: ["StrataDefaults"], path: "Samples/KeysSample",
            plugins: ["DefaultsKeysPlugin"]),

        // Sample programs: a PDF exporter and an audio exporter, end to end through the selector.
        .target(name: "SampleSupport", dependencies: ["Strata"], path: "Samples/SampleSupport"),
        .executableTarget(
            name: "pdf-exporter", dependencies: ["Strata", "SampleSupport"], path: "Samples/PDFExporter"),
        .executableTarget(
            name: "audio-exporter", dependencies: ["Strata", "SampleSupport"], path: "Samples/AudioExporter"),
        // The README's Quick start, compiled with the package (ReadmeTests keeps the two identical).
        .executableTarget(name: "quick-start", dependencies: ["Strata"], path: "Samples/QuickStart"),

        // The torture harness: kills, contention, injected faults and hostile files for every tier.
        .executableTarget(
            name: "strata-torture",
            dependencies: [
                "Strata", "StrataCore", "StrataSystem", "StrataDefaults", "StrataSecrets", "StrataRecords",
                "StrataSQLite",
                "StrataFiles", "StrataLocalFiles", "StrataPostgres", "StrataTestSupport", "StrataArchiveFixtures",
            ]),

        // Fuzz targets (see Scripts/fuzz.sh); a normal build replays corpus files.
        .executableTarget(
            name: "strata-fuzz",
            dependencies: [
                "CStrataSystem", "StrataCore", "StrataDefaults", "StrataSecrets", "StrataRecords", "StrataSQLite",
                "StrataFiles", "StrataLocalFiles",
                "StrataBackup", "StrataArchiveFixtures",
            ]),

        // Test support: temporary directories and child processes. Not a product.
        .target(
            name: "StrataTestSupport",
            dependencies: [
                "Strata", "StrataCore", "StrataSystem", "StrataDefaults", "StrataRecords", "StrataSQLite",
                "StrataPostgres",
                "StrataFiles", "StrataLocalFiles", "StrataS3",
            ]),
        // Hostile zip and gzip files built field by field, for the tests, the torture run and the fuzz target.
        .target(
            name: "StrataArchiveFixtures", dependencies: ["StrataFiles"],
            path: "Tests/ArchiveFixtures"),
        // The child program that tests spawn, hold locks in, and kill with SIGKILL.
        .executableTarget(
            name: "strata-test-child",
            dependencies: [
                "StrataTestSupport", "StrataCore", "StrataSystem", "StrataDefaults", "StrataSecrets", "StrataRecords",
                "StrataSQLite",
                "StrataFiles", "StrataLocalFiles", "Strata", "StrataBackup", "StrataS3", "StrataCatalogPostgres",
            ],
            path: "Tests/Child"),

        // Benchmarks: Strata beside the baseline a user would otherwise pick, in one run.
        .target(name: "BenchmarkKit", path: "Benchmarks/BenchmarkKit"),
        .executableTarget(
            name: "strata-bench-defaults", dependencies: ["BenchmarkKit", "StrataDefaults"],
            path: "Benchmarks/DefaultsBenchmark"),
        .executableTarget(
            name: "strata-bench-secrets", dependencies: ["BenchmarkKit", "StrataSecrets", "StrataSystem", "CSodium"],
            path: "Benchmarks/SecretsBenchmark"),
        .executableTarget(
            name: "strata-bench-records", dependencies: ["BenchmarkKit", "StrataRecords", "StrataSQLite", "CSQLite"],
            path: "Benchmarks/RecordsBenchmark"),
        .executableTarget(
            name: "strata-bench-postgres",
            dependencies: ["BenchmarkKit", "StrataRecords", "StrataSQLite", "StrataPostgres", "CLibPQ"],
            path: "Benchmarks/PostgresBenchmark"),
        .executableTarget(
            name: "strata-bench-storage",
            dependencies: ["BenchmarkKit", "Strata", "StrataCatalog", "StrataCatalogPostgres", "StrataPostgres"],
            path: "Benchmarks/StorageBenchmark"),
        .executableTarget(
            name: "strata-bench-files", dependencies: ["BenchmarkKit", "StrataFiles", "StrataLocalFiles"],
            path: "Benchmarks/FilesBenchmark"
        ),
        .executableTarget(
            name: "strata-bench-backup", dependencies: ["BenchmarkKit", "Strata", "StrataSystem"],
            path: "Benchmarks/BackupBenchmark"),
        // S3 transfers beside Python's boto3 (its side is the script beside main.swift, run in a virtualenv).
        .executableTarget(
            name: "strata-bench-s3",
            dependencies: ["BenchmarkKit", "StrataFiles", "StrataLocalFiles", "StrataS3", "StrataCore"],
            path: "Benchmarks/S3Benchmark", exclude: ["boto3_side.py"]),

        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "StrataSystem", "StrataCatalog", "StrataCatalogPostgres", "StrataPostgres",
                "StrataPostgresClient", "StrataConformance",
                "StrataTestSupport", "strata-test-child", "strata",
            ]
        ),
        .testTarget(
            name: "StrataCatalogTests",
            dependencies: [
                "StrataCatalog", "StrataCatalogPostgres", "StrataPostgres", "StrataPostgresClient", "StrataCore",
                "StrataSystem", "StrataTestSupport",
            ]),
        .testTarget(
            name: "StrataCoreTests",
            dependencies: ["StrataCore", "StrataSystem", "StrataConformance", "StrataTestSupport", "strata-test-child"]
        ),
        .testTarget(
            name: "StrataDefaultsTests",
            dependencies: [
                "StrataDefaults", "StrataDefaultsPostgres", "StrataPostgres", "StrataPostgresClient", "StrataSystem",
                "StrataConformance", "StrataTestSupport", "strata-test-child", "strata",
            ]
        ),
        .testTarget(
            name: "StrataSecretsTests",
            dependencies: [
                "StrataSecrets", "StrataSecretsPostgres", "StrataPostgres", "StrataPostgresClient", "StrataSystem",
                "StrataConformance", "StrataTestSupport", "strata-test-child",
            ]
        ),
        .testTarget(
            name: "StrataRecordsTests",
            dependencies: [
                "StrataRecords", "StrataSQLite", "StrataPostgres", "StrataPostgresClient", "StrataConformance",
                "StrataTestSupport",
                "strata-test-child",
            ]
        ),
        .testTarget(
            name: "StrataFilesTests",
            dependencies: [
                "StrataFiles", "StrataLocalFiles", "StrataSystem", "StrataConformance", "StrataTestSupport",
                "StrataArchiveFixtures",
                "strata-test-child",
            ]
        ),
        .testTarget(
            name: "StrataBackupTests",
            dependencies: ["StrataBackup", "StrataSystem", "StrataTestSupport", "strata-test-child"]
        ),
        .testTarget(
            name: "StrataS3Tests",
            dependencies: [
                "StrataS3", "StrataFiles", "StrataLocalFiles", "StrataSystem", "StrataTestSupport", "strata-test-child",
            ]
        ),
        .testTarget(
            name: "StrataLintTests",
            dependencies: [
                "StrataLint", "KeysSample", "StrataDefaults", "StrataTestSupport", "strata-keygen", "strata-lint",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "StrataCLITests",
            dependencies: [
                "Strata", "StrataSystem", "StrataCatalog", "StrataTestSupport", "strata", "pdf-exporter",
                "audio-exporter",
                "strata-torture", "strata-fuzz",
            ]
        ),
    ]
)

// One set of strict settings for every Swift target (system libraries take none).
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
for target in package.targets where target.type != .system && target.type != .plugin && target.name != "CStrataSystem" {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
