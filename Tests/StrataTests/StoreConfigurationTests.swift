import Foundation
import Strata
import StrataTestSupport
import Testing

/// The store configuration file (`<root>/strata.conf`): written and read back, refused with the file and the
/// line when it is bad or newer, and applied by `Storage(root:)` with explicit arguments winning.
@Suite("Storage: the store configuration file")
struct StoreConfigurationTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-configuration")
    }

    func writeFile(_ text: String) throws {
        let paths = try StoragePaths(root: root)
        try Data(text.utf8).write(to: URL(fileURLWithPath: paths.root + "/" + StoreConfiguration.fileName))
    }

    @Test func everySettingRoundTrips() throws {
        var configuration = StoreConfiguration()
        configuration.selector.defaults = DefaultsLimits(valueLimit: 1000, suiteBudget: 50_000)
        configuration.selector.smallStructuredLimit = 500
        configuration.selector.secretSizeLimit = 4096
        configuration.selector.context.minimumOS = PlatformVersion(.iOS, 17, 2)
        configuration.defaults.suite = "group.example"
        configuration.defaults.allowedSensitiveKeys = ["showPasswordHint", "cach\u{E9}Token"]
        configuration.secrets.keyring = "app"
        configuration.records.backend = "postgres"
        configuration.records.urlVariable = "APP_RECORDS_URL"
        configuration.records.store = "cache"
        let paths = try StoragePaths(root: root)
        try configuration.write(to: paths)
        let read = try #require(try StoreConfiguration.read(from: paths))
        #expect(read.selector == configuration.selector)
        #expect(read.defaults == configuration.defaults)
        #expect(read.secrets == configuration.secrets)
        #expect(read.records == configuration.records)
        #expect(read.files == configuration.files)
        #expect(read.path == paths.root + "/strata.conf")
        #expect(try StoreConfiguration.read(from: StoragePaths(root: directory.appending("empty"))) == nil)
    }

    /// Every malformed file is refused with a typed error naming the file and the line; a newer version with
    /// `.unsupportedVersion`, before anything else in it is read.
    @Test(arguments: [
        ("# no version\n[records]\nbackend = sqlite\n", "corrupt", 2),
        ("version = 2\n[records]\nwhatever = 1\n", "unsupported-version", 1),
        ("# comment\n\nversion = 1\n[nope]\n", "corrupt", 4),
        ("version = 1\n[defaults]\nvalue-limit = lots\n", "corrupt", 3),
        ("version = 1\n[defaults]\nvalue-limit = 0\n", "corrupt", 3),
        ("version = 1\n[records]\nbackend = sqlite\nbackend = postgres\n", "corrupt", 4),
        ("version = 1\nbackend = sqlite\n", "corrupt", 2),
        ("version = 1\n[files]\ncolour = blue\n", "corrupt", 3),
        ("version = 1\n[files]\njust words\n", "corrupt", 3),
        ("version = one\n", "corrupt", 1),
        ("version = 1\n[selector]\nminimum-os = android 14\n", "corrupt", 3),
        // A setting with no name trapped ("Index out of range"); a value with a control character was read, and
        // then could not be written back (`strata init` failed on the file it had read).
        ("version = 1\n[records]\n= x\n", "corrupt", 3), ("version = 1\n[records]\n  =\tx\n", "corrupt", 3),
        ("version = 1\n[records]\nstore = ab\u{1}c\n", "corrupt", 3),
        ("version = 1\n[files]\nregion = eu\u{85}\n", "corrupt", 3),
    ])
    func aBadOrNewerFileIsRefusedWithItsPathAndLine(_ text: String, _ code: String, _ line: Int) throws {
        try writeFile(text)
        for open in [
            { _ = try Storage(root: root) }, { _ = try StoreConfiguration.read(from: StoragePaths(root: root)) },
        ] {
            let error = #expect(throws: StorageError.self) { try open() }
            #expect(error?.code.rawValue == code, "\(String(describing: error))")
            #expect(error?.path?.hasSuffix("/strata.conf") == true)
            #expect(error?.line == line, "\(String(describing: error))")
            #expect(error?.description.contains("line \(line)") == true)
        }
    }

    /// A file with Windows line ends reads as the same file with `\n` alone (each line was one `Character`
    /// `\r\n`, never split: the whole file read as one line, refused).
    @Test func windowsLineEndsReadAsLineEnds() throws {
        let text = "# comment\nversion = 1\n[defaults]\nsuite = prefs\n[records]\nstore = cache\n"
        let unix = try StoreConfiguration.parse(Data(text.utf8))
        let windows = try StoreConfiguration.parse(Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        #expect(windows == unix)
        #expect(windows.defaults.suite == "prefs" && windows.records.store == "cache")
        let error = #expect(throws: StorageError.self) {
            try StoreConfiguration.parse(Data("version = 1\r\n[records]\r\nstore = a\r\nstore = b\r\n".utf8))
        }
        #expect(error?.line == 4)
    }

    @Test func aFileThatIsNotTextIsRefused() throws {
        let paths = try StoragePaths(root: root)
        try Data([0x76, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: paths.root + "/strata.conf"))
        let error = #expect(throws: StorageError.self) { try Storage(root: root) }
        #expect(error?.code == .corrupt)
    }

    /// The file's thresholds reach both the selector and the defaults tier; an explicit selector wins, and the
    /// tier then follows the selector (the two never disagree).
    @Test func theFileConfiguresTheStoreAndExplicitArgumentsWin() throws {
        try writeFile("version = 1\n[defaults]\nvalue-limit = 1KiB\nsuite = prefs\n[secrets]\nkeyring = app\n")
        let configured = try openStorage(root)
        #expect(configured.selector.configuration.defaults.valueLimit == 1024)
        let defaults = try #require(try configured.backend(for: .defaults) as? DefaultsStore)
        #expect(defaults.configuration.limits.valueLimit == 1024)
        #expect(defaults.suite == "prefs")
        #expect((try configured.backend(for: .secrets) as? SecretStore)?.keyring == "app")
        #expect(
            try configured.put(Data(count: 2000), for: "big", as: DataDescriptor(kind: .preference, estimatedSize: 1))
                .tier == .files)

        let explicit = try Storage(
            root: root, selector: StorageSelector(), secretsKey: testSecretsKey)
        #expect(explicit.selector.configuration.defaults.valueLimit == 64 << 10)
        let explicitDefaults = try #require(try explicit.backend(for: .defaults) as? DefaultsStore)
        #expect(explicitDefaults.configuration.limits.valueLimit == 64 << 10)
        #expect(explicitDefaults.suite == "prefs", "what the selector does not cover still comes from the file")
    }

    /// A backend name that is not registered is refused at open, naming the file and the line.
    @Test func anUnknownBackendIsRefusedWithItsLine() throws {
        try writeFile("version = 1\n[files]\nbackend = azure-blob\n")
        let error = #expect(throws: StorageError.self) { try Storage(root: root) }
        #expect(error?.code == .noBackend)
        #expect(error?.line == 3)
        #expect(error?.tier == .files)
        #expect(error?.recovery?.contains("filesystem") == true)
    }

    /// Records on PostgreSQL named by an environment variable that is unset: a typed error with the line, not
    /// a silent fall back to SQLite.
    @Test func aPostgresTierWithoutItsURLIsRefused() throws {
        try writeFile("version = 1\n[records]\nbackend = postgres\nurl-variable = STRATA_TEST_UNSET_URL\n")
        unsetenv("STRATA_TEST_UNSET_URL")
        let error = #expect(throws: StorageError.self) { try Storage(root: root) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.line == 4)
        #expect(error?.recovery?.contains("STRATA_TEST_UNSET_URL") == true)
    }

    /// A value the file cannot hold on one line is refused when writing, and nothing is written.
    @Test func aValueTheFileCannotHoldIsRefused() throws {
        var configuration = StoreConfiguration()
        configuration.defaults.allowedSensitiveKeys = ["two\nlines"]
        let paths = try StoragePaths(root: root)
        #expect(throws: StorageError.self) { try configuration.write(to: paths) }
        #expect(try StoreConfiguration.read(from: paths) == nil)
    }
}

/// A store whose records live on PostgreSQL, by its configuration file: `Storage(root:)` and every `strata`
/// verb (inspect, verify, records) find them there. Runs when the test server is up (always in CI).
@Suite(
    "Storage: records on PostgreSQL by the configuration file",
    .enabled(if: RecordEngineKind.available.contains(.postgres)))
struct StoreConfigurationPostgresTests {
    let location: RecordStoreLocation
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        location = try RecordStoreLocation(.postgres)
        directory = try TemporaryDirectory(prefix: "strata-configuration-pg")
    }

    /// The test server's URL naming this test's schema.
    var url: String { location.postgresURL }

    @Test func storageAndTheCLIFindTheRecordsOnTheServer() throws {
        let strata = try TestExecutables.url(named: "strata")
        let environment = ["STRATA_TEST_RECORDS_URL": url, "STRATA_RECORDS_URL": ""]
        let initialized = try ChildProcess.run(
            strata, ["init", root, "--records-url-variable", "STRATA_TEST_RECORDS_URL"], environment: environment)
        #expect(initialized.status == 0, "\(initialized.standardError)")
        let file = try String(contentsOfFile: root + "/strata.conf", encoding: .utf8)
        #expect(!file.contains("postgresql://"), "the file holds the variable's name, never the URL: \(file)")

        setenv("STRATA_TEST_RECORDS_URL", url, 1)
        let storage = try openStorage(root)
        #expect(try storage.backend(for: .records).name == "postgres")
        let selection = try storage.put(
            Data(#"{"id":"o1"}"#.utf8), for: "orders/o1", as: DataDescriptor(kind: .structured, estimatedSize: 12))
        #expect(selection.backend == "postgres")
        #expect(!selection.concurrencyGuarantee.contains("SQLite"), "\(selection.concurrencyGuarantee)")
        #expect(try location.open().data(for: "orders/o1") == Data(#"{"id":"o1"}"#.utf8))
        #expect(!FileManager.default.fileExists(atPath: root + "/records/main.sqlite"))

        let records = directory.appending("things.jsonl")
        try Data("{\"id\":\"a\",\"n\":1}\n{\"id\":\"b\",\"n\":2}\n".utf8).write(to: URL(fileURLWithPath: records))
        let imported = try ChildProcess.run(
            strata, ["records", "import", "things", records, "--root", root, "--create"], environment: environment)
        #expect(imported.standardOutput == "imported 2 record(s)\n", "\(imported.standardError)")

        let inspect = try ChildProcess.run(strata, ["inspect", root], environment: environment)
        #expect(inspect.status == 0, "\(inspect.standardError)")
        #expect(inspect.standardOutput.contains("records: on PostgreSQL"), "\(inspect.standardOutput)")
        #expect(inspect.standardOutput.contains("things 2"), "\(inspect.standardOutput)")
        #expect(inspect.standardOutput.contains("records: postgres; "), "\(inspect.standardOutput)")
        #expect(!inspect.standardOutput.contains(url), "no password printed")
        let verify = try ChildProcess.run(
            strata, ["verify", root], environment: environment.merging(["STRATA_SECRETS_KEY": testSecretsKeyHex]) { $1 }
        )
        #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
        #expect(verify.standardOutput.hasPrefix("ok"))

        // Without the variable, both say why, naming the file's line, instead of reporting an empty store.
        let unset = ["STRATA_TEST_RECORDS_URL": "", "STRATA_RECORDS_URL": ""]
        let blind = try ChildProcess.run(strata, ["verify", root], environment: unset)
        #expect(blind.status == 1)
        #expect(blind.standardOutput.contains("STRATA_TEST_RECORDS_URL"), "\(blind.standardOutput)")
        #expect(blind.standardOutput.contains("line "), "\(blind.standardOutput)")
    }
}
