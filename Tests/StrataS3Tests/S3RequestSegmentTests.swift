import Foundation
import StrataCore
import Testing

@testable import StrataS3

#if canImport(Glibc)
    import Glibc
#endif

/// How a request reaches the server on the wire, seen from a one-shot HTTP server on loopback that counts the TCP
/// segments carrying data it received for the request (the kernel's `tcpi_data_segs_in`).
@Suite struct S3RequestSegmentTests {
    /// Accepts one connection, reads one request whole, answers `200 OK` with an entity tag, and reports how many
    /// segments with data the request came in.
    final class OneShotServer: @unchecked Sendable {
        // `segments` is written by the server's thread before `done` is signalled, and read after waiting on it.
        let descriptor: Int32
        let port: Int
        private let done = DispatchSemaphore(value: 0)
        private var segments = 0
        private var request = Data()

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && listen(descriptor, 1) == 0
                        && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw StorageError(.io, "cannot listen on loopback") }
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread { self.serve() }.start()
        }

        deinit { close(descriptor) }

        private func serve() {
            defer { done.signal() }
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while !isComplete(request) {
                let count = recv(client, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                request.append(contentsOf: buffer[0..<count])
            }
            // struct tcp_info (linux/tcp.h): tcpi_data_segs_in, a __u32 at byte 152 (the kernel only appends to it).
            var info = [UInt8](repeating: 0, count: 232)
            var size = socklen_t(info.count)
            if getsockopt(client, Int32(IPPROTO_TCP), 11 /* TCP_INFO */, &info, &size) == 0, size >= 156 {
                segments = Int(info.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 152, as: UInt32.self) })
            }
            let answer = "HTTP/1.1 200 OK\r\nETag: \"tag\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = answer.withCString { send(client, $0, strlen($0), 0) }
        }

        /// Whether `request` holds the headers and as many body bytes as they announce.
        private func isComplete(_ request: Data) -> Bool {
            guard let end = request.range(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: request[..<end.lowerBound], as: UTF8.self).lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            return request.count - end.upperBound >= length
        }

        /// The data segments of the request and the request, once it was answered.
        func received() -> (segments: Int, request: Data) {
            done.wait()
            return (segments, request)
        }
    }

    @Test func aSmallPutGoesOutInOneSegment() throws {
        // The headers and a body held in memory leave in one send: the server wakes once for the request, not once
        // for the headers and again for the body.
        let server = try OneShotServer()
        var configuration = try S3Configuration(
            url: "s3://bucket/", endpoint: URL(string: "http://127.0.0.1:\(server.port)"), region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"), environment: [:])
        configuration.maxAttempts = 1
        let client = try S3Client(configuration)
        let body = (0..<(16 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let info = try client.put("small", bytes: body, contentType: "application/octet-stream")
        #expect(info.etag == "tag")
        let (segments, request) = server.received()
        #expect(request.starts(with: Data("PUT /bucket/small HTTP/1.1\r\n".utf8)))
        #expect(request.suffix(body.count) == Data(body), "the body arrived whole")
        #expect(segments == 1, "headers and body in one segment, not \(segments)")
    }
}
