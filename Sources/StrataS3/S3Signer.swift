import Foundation
import StrataCore
import StrataSecrets

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// AWS Signature Version 4 for S3: the canonical request, the string to sign, the derived signing key and the
/// `Authorization` header. SHA-256 and HMAC-SHA-256 are libsodium's (through `StrataSecrets`), never our own.
struct S3Signer: Sendable {
    /// The SHA-256 of no bytes, in hex: the payload hash of a request without a body.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    let credentials: S3Credentials
    let region: String
    let service: String

    init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to a request so that the server accepts it: `x-amz-date`, `x-amz-content-sha256`,
    /// `x-amz-security-token` (with a session token) and `Authorization`.
    /// - Parameters:
    ///   - method: `GET`, `PUT`, ...
    ///   - path: The canonical (already encoded) path, `/bucket/key`.
    ///   - query: The query parameters, not encoded.
    ///   - headers: The headers that will be sent (names in any case); all of them are signed. Must include `host`.
    ///   - payloadHash: The hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    ///   - date: The signing time.
    func signedHeaders(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String,
        date: Date
    ) -> [(String, String)] {
        let (amzDate, day) = Self.timestamps(date)
        var all = headers
        all.append(("x-amz-date", amzDate))
        all.append(("x-amz-content-sha256", payloadHash))
        if let token = credentials.sessionToken { all.append(("x-amz-security-token", token)) }
        let canonical = canonicalRequest(
            method: method, path: path, query: query, headers: all, payloadHash: payloadHash)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(Self.hexSHA256(Array(canonical.request.utf8)))"
        let signature = Hex.encode(Sodium.hmacSHA256(Array(stringToSign.utf8), key: signingKey(day: day)))
        all.append(
            (
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
                    + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
            ))
        return all
    }

    /// The canonical request and its `SignedHeaders` list.
    func canonicalRequest(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String
    ) -> (request: String, signedHeaders: String) {
        var byName: [String: [String]] = [:]
        for (name, value) in headers {
            byName[name.lowercased(), default: []].append(Self.trimmedHeaderValue(value))
        }
        let names = byName.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
        let signed = names.joined(separator: ";")
        let request = [
            method, path, Self.canonicalQuery(query), canonicalHeaders, signed, payloadHash,
        ].joined(separator: "\n")
        return (request, signed)
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request").
    func signingKey(day: String) -> [UInt8] {
        var key = Sodium.hmacSHA256(Array(day.utf8), key: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [region, service, "aws4_request"] { key = Sodium.hmacSHA256(Array(part.utf8), key: key) }
        return key
    }

    /// The query string in canonical form: every name and value URI-encoded, sorted by name then value.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        query.map { (uriEncode($0.0, keepingSlash: false), uriEncode($0.1, keepingSlash: false)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// S3's URI encoding: every byte of the UTF-8 form except `A-Z a-z 0-9 - . _ ~` (and `/` in a path) as `%XX`.
    static func uriEncode(_ text: String, keepingSlash: Bool) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlash:
                encoded.append("/")
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    /// A header value with its ends trimmed and inner runs of spaces collapsed to one.
    static func trimmedHeaderValue(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// `20130524T000000Z` and `20130524` for `date`, in UTC.
    static func timestamps(_ date: Date) -> (amzDate: String, day: String) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let day = String(format: "%04d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday)
        return (day + String(format: "T%02d%02d%02dZ", parts.tm_hour, parts.tm_min, parts.tm_sec), day)
    }

    static func hexSHA256(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes(hexSHA256)
    }

    static func hexSHA256(_ bytes: UnsafeRawBufferPointer) -> String {
        Hex.encode(Sodium.sha256 { $0(bytes) })
    }
}
