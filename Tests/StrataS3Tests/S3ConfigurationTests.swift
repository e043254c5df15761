import Foundation
import StrataCore
import Testing

@testable import StrataS3

@Suite struct S3ConfigurationTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    static let environment = [
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY": secret,
        "AWS_ENDPOINT_URL": "http://127.0.0.1:7480", "AWS_REGION": "eu-west-3",
    ]

    @Test func urlAndEnvironmentGiveBucketPrefixEndpointRegionAndCredentials() throws {
        let configuration = try S3Configuration(url: "s3://media/exports", environment: Self.environment)
        #expect(configuration.bucket == "media")
        #expect(configuration.prefix == "exports/")
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:7480")
        #expect(configuration.hostHeader == "127.0.0.1:7480")
        #expect(configuration.region == "eu-west-3")
        #expect(configuration.credentials.accessKeyID == "AKIAIOSFODNN7EXAMPLE")
        let bare = try S3Configuration(url: "s3://media", environment: Self.environment)
        #expect(bare.prefix == "")
        let specific = try S3Configuration(
            url: "s3://media/",
            environment: Self.environment.merging(["AWS_ENDPOINT_URL_S3": "https://s3.example"]) {
                $1
            })
        #expect(specific.endpoint.absoluteString == "https://s3.example")
        #expect(specific.hostHeader == "s3.example")
    }

    @Test func explicitValuesWinOverTheEnvironment() throws {
        let keys = S3Credentials(accessKeyID: "other", secretAccessKey: "other-secret")
        let configuration = try S3Configuration(
            url: "s3://b/p/", endpoint: URL(string: "http://localhost:9000"), region: "us-west-2", credentials: keys,
            environment: Self.environment)
        #expect(configuration.credentials == keys)
        #expect(configuration.region == "us-west-2")
        #expect(configuration.hostHeader == "localhost:9000")
        let aws = try S3Configuration(
            url: "s3://b", environment: ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"])
        #expect(aws.endpoint.absoluteString == "https://s3.us-east-1.amazonaws.com")
    }

    @Test(arguments: ["http://bucket/x", "s3://", "s3:///prefix", "s3://user:\(secret)@bucket/x", "bucket"])
    func badURLsAreRefusedWithoutEchoingThem(_ url: String) {
        let error = #expect(throws: StorageError.self) {
            try S3Configuration(url: url, environment: Self.environment)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error.map { !"\($0)".contains(Self.secret) } ?? false)
    }

    @Test(arguments: ["ftp://host", "http://user:pw@host", "http://host/path", "http://"])
    func badEndpointsAreRefused(_ endpoint: String) {
        let error = #expect(throws: StorageError.self) {
            try S3Configuration(
                url: "s3://b",
                environment: Self.environment.merging(["AWS_ENDPOINT_URL": endpoint]) {
                    $1
                })
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func missingCredentialsAreAnAuthenticationError() {
        let error = #expect(throws: StorageError.self) {
            try S3Configuration(url: "s3://b", environment: ["AWS_ACCESS_KEY_ID": "only-the-id"])
        }
        #expect(error?.code == .authenticationFailed)
    }

    @Test func credentialsNeverPrint() throws {
        let keys = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: Self.secret, sessionToken: "tok")
        let configuration = try S3Configuration(url: "s3://b/p", environment: Self.environment)
        var dumped = ""
        dump(keys, to: &dumped)
        var dumpedConfiguration = ""
        dump(configuration, to: &dumpedConfiguration)
        for text in [
            "\(keys)", String(reflecting: keys), dumped, "\(configuration)", String(reflecting: configuration),
            dumpedConfiguration,
        ] {
            #expect(!text.contains(Self.secret))
            #expect(!text.contains("AKIAIOSFODNN7EXAMPLE"))
            #expect(!text.contains("tok\""))
        }
        #expect(keys.redacting("a AKIAIOSFODNN7EXAMPLE b \(Self.secret)") == "a <redacted> b <redacted>")
    }

    @Test func limitsThatCannotWorkAreRefused() throws {
        var configuration = try S3Configuration(url: "s3://b", environment: Self.environment)
        configuration.partSize = 1 << 20
        #expect(throws: StorageError.self) { try S3Client(configuration) }
        configuration.partSize = 5 << 20
        configuration.maxAttempts = 0
        #expect(throws: StorageError.self) { try S3Client(configuration) }
    }
}
