import Foundation
import StrataCore
import StrataSystem

/// The state of one HTTP exchange while libcurl runs it: the body going out, the status and headers coming in,
/// and the body coming in (to memory or to a file). Used by one thread at a time: the one in `curl_easy_perform`.
final class HTTPTransfer {
    /// The most an answer held in memory may be (an error document or an XML listing).
    static let memoryLimit = 64 << 20

    let body: HTTPBody
    let sink: HTTPSink
    /// How many bytes of the body earlier attempts already delivered to the sink: a file is written on from
    /// `offset + resumedAt`.
    let resumedAt: Int64
    private(set) var sent: Int64 = 0
    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    private(set) var received: [UInt8] = []
    /// Bytes written to the sink's file or handed to its receiver by this attempt.
    private(set) var written: Int64 = 0
    /// Why a callback stopped the transfer: a failed read or write of the caller's file, an answer too large.
    private(set) var localError: StorageError?

    init(body: HTTPBody, sink: HTTPSink, resumedAt: Int64 = 0) {
        self.body = body
        self.sink = sink
        self.resumedAt = resumedAt
    }

    /// Fills `buffer` with the next bytes of the body; nil stops the transfer (``localError`` says why).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let remaining = body.length - sent
        guard remaining > 0, buffer.count > 0 else { return 0 }
        let count = Int(min(Int64(buffer.count), remaining))
        switch body {
        case .empty:
            return 0
        case .bytes(let bytes):
            bytes.withUnsafeBytes { source in copy(from: source, into: buffer, count: count) }
            return count
        case .part(let part):
            copy(from: part.bytes, into: buffer, count: count)
            return count
        case .descriptor(let fd, let offset, _):
            do throws(Errno) {
                let got = try Sys.pread(
                    fd, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), at: offset + sent)
                guard got > 0 else {
                    localError = StorageError(
                        .io, "the file being uploaded ended before its announced length", tier: .files,
                        recovery: "Do not change a file while it is uploaded")
                    return nil
                }
                sent += Int64(got)
                return got
            } catch {
                localError = error.storageError("cannot read the file being uploaded", tier: .files)
                return nil
            }
        }
    }

    /// Copies the next `count` bytes of an in-memory body into libcurl's buffer.
    private func copy(from source: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, count: Int) {
        let start = Int(sent)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
        sent += Int64(count)
    }

    /// Takes one header line; a status line starts a new set (after `100 Continue`, a redirect). Read byte by
    /// byte: Foundation's trimming and lowercasing through `NSString` showed in every small request's profile.
    func header(_ line: UnsafeRawBufferPointer) {
        if line.starts(with: "HTTP/".utf8) {
            var status = 0
            var index = (line.firstIndex(of: UInt8(ascii: " ")) ?? line.count) + 1
            while index < line.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index]) {
                status = status * 10 + Int(line[index] - UInt8(ascii: "0"))
                index += 1
            }
            self.status = status
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = colon + 1
        var end = line.count
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self).lowercased()
        headers[name] = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }

    /// Takes the next bytes of the answer; false stops the transfer (``localError`` says why).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if case .stream(let receiver) = sink, (200..<300).contains(status) {
            guard receiver.receive(bytes) else {
                localError = StorageError(.cancelled, "the reader of the object stopped", tier: .files)
                return false
            }
            written += Int64(bytes.count)
            return true
        }
        if case .descriptor(let fd, let offset) = sink, (200..<300).contains(status) {
            var done = 0
            while done < bytes.count {
                do throws(Errno) {
                    let count = try Sys.pwrite(
                        fd, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + resumedAt + written)
                    guard count > 0 else { throw Errno(EIO) }
                    done += count
                    written += Int64(count)
                } catch {
                    localError = error.storageError("cannot write the file being downloaded", tier: .files)
                    return false
                }
            }
            return true
        }
        guard received.count + bytes.count <= Self.memoryLimit else {
            localError = StorageError(
                .limitExceeded, "the server's answer is larger than \(Self.memoryLimit) bytes", tier: .files)
            return false
        }
        received.append(contentsOf: bytes)
        return true
    }
}
