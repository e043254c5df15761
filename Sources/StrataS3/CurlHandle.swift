internal import CCurl
import Foundation
import StrataCore

/// One libcurl easy handle: the only code that calls libcurl. A handle keeps its connection open between
/// requests (connection reuse), so the client keeps a pool of them, one per worker; a handle is used by one
/// thread at a time. No C type leaves this file.
///
/// `@unchecked Sendable`: a handle is never used by two threads at once. `S3Client` keeps idle handles in its
/// `idle` mutex and hands each to exactly one request, which gives it back (under the same mutex) when done.
final class CurlHandle: @unchecked Sendable {
    /// `curl_global_init` once per process, before the first handle.
    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    private let easy: UnsafeMutableRawPointer
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    init() throws(StorageError) {
        guard Self.ready, let easy = curl_easy_init() else {
            throw StorageError(.io, "libcurl failed to initialize", tier: .files)
        }
        self.easy = easy
    }

    deinit { curl_easy_cleanup(easy) }

    /// Runs one exchange. The status, headers and body arrive in `transfer`.
    /// - Returns: nil when an answer arrived (of any status), else why none did.
    func perform(
        method: String, url: String, headers: [(String, String)], transfer: HTTPTransfer, timeouts: HTTPTimeouts
    ) -> HTTPTransportFailure? {
        curl_easy_reset(easy)
        var list: UnsafeMutablePointer<curl_slist>? = nil
        // No `Expect: 100-continue` round trip, and no content type that curl would add to a POST on its own.
        var removed = ["Expect:", "Accept:"]
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { removed.append("Content-Type:") }
        for line in headers.map({ "\($0.0): \($0.1)" }) + removed {
            list = curl_slist_append(list, line)
        }
        defer { curl_slist_free_all(list) }
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        errorBuffer.withUnsafeMutableBufferPointer { $0[0] = 0 }
        _ = strata_curl_set_string(easy, CURLOPT_URL, url)
        _ = strata_curl_set_list(easy, CURLOPT_HTTPHEADER, list)
        _ = strata_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = strata_curl_set_long(easy, CURLOPT_PATH_AS_IS, 1)
        _ = strata_curl_set_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        _ = strata_curl_set_long(easy, CURLOPT_TCP_NODELAY, 1)
        _ = strata_curl_set_long(easy, CURLOPT_TIMEOUT_MS, timeouts.totalMilliseconds)
        _ = strata_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, timeouts.connectMilliseconds)
        _ = strata_curl_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = strata_curl_set_long(easy, CURLOPT_LOW_SPEED_TIME, timeouts.stallSeconds)
        _ = strata_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = errorBuffer.withUnsafeMutableBufferPointer {
            strata_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer($0.baseAddress!))
        }
        _ = strata_curl_set_pointer(easy, CURLOPT_READDATA, context)
        _ = strata_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = strata_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = strata_curl_set_transfer(easy, CURLOPT_READFUNCTION) { buffer, size, count, context in
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue()
            let target = UnsafeMutableRawBufferPointer(start: buffer, count: size * count)
            return transfer.read(into: target).map { $0 } ?? Int(CURL_READFUNC_ABORT)
        }
        _ = strata_curl_set_transfer(easy, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
            return transfer.write(bytes) ? size * count : 0
        }
        _ = strata_curl_set_transfer(easy, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue()
            transfer.header(UnsafeRawBufferPointer(start: buffer, count: size * count))
            return size * count
        }
        if method == "PUT" || method == "POST", case .bytes(let bytes) = transfer.body, !bytes.isEmpty {
            // A body in memory goes out as libcurl's post fields: up to 64 KiB of it in the same send as the
            // headers (one segment, one wake-up of the server), where the read callback sent it in a second one.
            return outcome(
                bytes.withUnsafeBytes { body in
                    if method == "PUT" { _ = strata_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, "PUT") }
                    _ = strata_curl_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                    _ = strata_curl_set_pointer(
                        easy, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress!))
                    return curl_easy_perform(easy)
                }, transfer)
        }
        switch method {
        case "GET":
            _ = strata_curl_set_long(easy, CURLOPT_HTTPGET, 1)
        case "HEAD":
            _ = strata_curl_set_long(easy, CURLOPT_NOBODY, 1)
        case "PUT":
            _ = strata_curl_set_long(easy, CURLOPT_UPLOAD, 1)
            _ = strata_curl_set_offset(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(transfer.body.length))
        case "POST":
            _ = strata_curl_set_long(easy, CURLOPT_POST, 1)
            _ = strata_curl_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(transfer.body.length))
        default:
            _ = strata_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, method)
        }
        return outcome(curl_easy_perform(easy), transfer)
    }

    /// nil for an exchange that ended with an answer, else why none came.
    private func outcome(_ result: CURLcode, _ transfer: HTTPTransfer) -> HTTPTransportFailure? {
        if result == CURLE_OK { return nil }
        let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
        let kind: HTTPTransportFailure.Kind
        switch result {
        case CURLE_OPERATION_TIMEDOUT: kind = .timeout
        case CURLE_ABORTED_BY_CALLBACK, CURLE_READ_ERROR, CURLE_WRITE_ERROR:
            kind = transfer.localError == nil ? .connection : .local
        default: kind = .connection
        }
        return HTTPTransportFailure(
            kind: kind, message: message, curlCode: Int32(result.rawValue), local: transfer.localError)
    }
}
