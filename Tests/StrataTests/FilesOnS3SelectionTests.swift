import Foundation
import Strata
import StrataTestSupport
import Testing

/// Putting the files tier on S3 is configuration, the way a `postgresql://` URL puts records on PostgreSQL: an
/// `s3://bucket/prefix` URL to `Storage(filesURL:)`, or `[files]` in `strata.conf`. Nothing here contacts a server.
@Suite("Files on S3 selected by configuration")
struct FilesOnS3SelectionTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    static let environment = [
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY": secret,
        "AWS_ENDPOINT_URL": "http://127.0.0.1:7480", "AWS_REGION": "eu-west-3",
    ]
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-files-s3") }

    @Test func anS3URLMakesS3TheActiveFilesBackendWithoutContactingIt() throws {
        let storage = try Storage(root: directory.appending("root"), filesURL: "s3://media/exports")
        let selection = storage.select(
            DataDescriptor(kind: .file, estimatedSize: 1 << 20, contentType: "application/pdf"))
        #expect(selection.tier == .files)
        #expect(selection.backend == "s3")
        #expect(storage.configuration.files.backend == "s3")
        let local = try Storage(root: directory.appending("local"), filesURL: "")
        #expect(try local.backend(for: .files).name == "filesystem")
    }

    @Test func theConfigurationFileNamesTheBucketServerAndRegion() throws {
        var configuration = StoreConfiguration()
        configuration.files.backend = "s3"
        configuration.files.urlVariable = "MEDIA_BUCKET"
        configuration.files.endpoint = "http://127.0.0.1:9000"
        configuration.files.region = "eu-central-1"
        configuration.files.credentials = .secrets(accessKeyID: "AKIAIOSFODNN7EXAMPLE")
        let text = try configuration.rendered()
        #expect(text.contains("[files]\nbackend = s3\nurl-variable = MEDIA_BUCKET\nendpoint = http://127.0.0.1:9000\n"))
        #expect(text.contains("credentials = secrets\naccess-key-id = AKIAIOSFODNN7EXAMPLE\n"))
        let read = try StoreConfiguration.parse(Data(text.utf8))
        #expect(read.files == configuration.files)
        let location = try #require(
            try Storage.filesLocation(read, environment: ["MEDIA_BUCKET": "s3://media/2026/"]))
        // The file's server and region win over the AWS_* variables.
        #expect("\(location)" == "s3://media/2026/ at http://127.0.0.1:9000 (eu-central-1)")
        let facts = try Storage.configuredBackendFacts(
            read, paths: StoragePaths(root: directory.appending("r")), environment: ["MEDIA_BUCKET": "s3://media"])
        let files = try #require(facts.first { $0.tier == .files })
        #expect(files.name == "s3")
        #expect(files.layout.map(\.location) == ["http://127.0.0.1:9000/media/"])
    }

    @Test(arguments: [
        ("http://media/x", "scheme"), ("media/x", "scheme"), ("s3://", "bucket"), ("s3://bad bucket/x", "bucket"),
        ("s3://user:\(secret)@media/x", "bucket"), ("s3://media:9000/x", "bucket"), ("s3://media/a//b", "prefix"),
        ("s3://media/a/../b", "prefix"), ("s3://media/a/./b", "prefix"), ("s3://media/a?region=x", "prefix"),
        ("s3://media/a\u{1B}[2J", "prefix"),
    ])
    func aMalformedURLIsATypedErrorNamingThePart(_ url: String, _ part: String) {
        let error = #expect(throws: StorageError.self) {
            try Storage(root: directory.appending("root"), filesURL: url)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.tier == .files)
        #expect(error?.attribute == part, "\(String(describing: error))")
        #expect(error.map { !"\($0)".contains(Self.secret) } ?? false)
    }

    @Test func aMalformedEndpointIsNamed() {
        var files = StoreConfiguration.Files()
        files.endpoint = "ftp://host"
        let error = #expect(throws: StorageError.self) { try S3FilesLocation(url: "s3://media", settings: files) }
        #expect(error?.attribute == "endpoint")
        files.endpoint = nil
        let variable = #expect(throws: StorageError.self) {
            try S3FilesLocation(url: "s3://media", settings: files, environment: ["AWS_ENDPOINT_URL": "http://h/p"])
        }
        #expect(variable?.attribute == "endpoint")
    }

    @Test func missingCredentialsNameTheVariablesToSet() throws {
        let location = try S3FilesLocation(url: "s3://media", environment: [:])
        let error = #expect(throws: StorageError.self) {
            try location.configuration(environment: ["AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE"]) {
                Issue.record("the keyring is not read for credentials from the environment")
                throw StorageError(.locked, "unexpected")
            }
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.attribute == "credentials")
        #expect(error?.recovery?.contains("AWS_ACCESS_KEY_ID") == true)
        #expect(error?.recovery?.contains("AWS_SECRET_ACCESS_KEY") == true)
        let configuration = try location.configuration(environment: Self.environment) {
            throw StorageError(.locked, "")
        }
        #expect(configuration.credentials.secretAccessKey == Self.secret)
        #expect(!"\(location)".contains(Self.secret) && !"\(configuration)".contains(Self.secret))
    }

    @Test func credentialsKeptInTheKeyringAreReadFromIt() throws {
        let paths = try StoragePaths(root: directory.appending("root"))
        let key = KeyProvider.inMemory(Secret(Data(repeating: 7, count: 32)))
        let keyring = try SecretStore(keyring: "default", paths: paths, unlockingWith: key)
        var files = StoreConfiguration.Files()
        files.backend = "s3"
        files.credentials = .secrets(accessKeyID: "AKIAIOSFODNN7EXAMPLE")
        let location = try S3FilesLocation(url: "s3://media", settings: files, environment: [:])
        let missing = #expect(throws: StorageError.self) { try location.configuration(environment: [:]) { keyring } }
        #expect(missing?.code == .authenticationFailed)
        #expect(
            missing?.recovery?.contains("strata secrets set \(FilesCredentials.secretsService) AKIAIOSFODNN7EXAMPLE")
                == true)
        try keyring.set(
            Secret(Self.secret), service: FilesCredentials.secretsService, account: "AKIAIOSFODNN7EXAMPLE")
        // The environment's pair is not used when the configuration keeps the key in the keyring.
        let configuration = try location.configuration(environment: Self.environment) { keyring }
        #expect(configuration.credentials.accessKeyID == "AKIAIOSFODNN7EXAMPLE")
        #expect(configuration.credentials.secretAccessKey == Self.secret)
    }

    @Test(arguments: [
        ("backend = s3\n", "files.backend", "url"),
        ("backend = s3\nurl = http://media\n", "files.url", "scheme"),
        ("backend = s3\nurl-variable = MEDIA_BUCKET\n", "files.url-variable", "url"),
    ])
    func anS3FilesTierWithoutALocationNamesTheLine(_ section: String, _ setting: String, _ part: String) throws {
        let text = "version = 1\n[files]\n" + section
        let configuration = try StoreConfiguration.parse(Data(text.utf8), path: "/x/strata.conf")
        let error = #expect(throws: StorageError.self) { try Storage.filesLocation(configuration, environment: [:]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.attribute == part)
        #expect(error?.path == "/x/strata.conf")
        #expect(error?.line == configuration.lines[setting])
    }

    @Test(arguments: [
        ("credentials = secrets\n", 3), ("access-key-id = AKIA\n", 3), ("credentials = keychain\n", 3),
    ])
    func credentialSettingsThatDoNotFitAreRefusedWithTheirLine(_ section: String, _ line: Int) {
        let error = #expect(throws: StorageError.self) {
            try StoreConfiguration.parse(Data(("version = 1\n[files]\n" + section).utf8), path: "/x/strata.conf")
        }
        #expect(error?.code == .corrupt)
        #expect(error?.line == line)
    }
}
