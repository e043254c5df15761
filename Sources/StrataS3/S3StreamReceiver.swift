import StrataCore

/// Hands the body of a streamed GET to a caller's function in chunks of a fixed size (the last one shorter),
/// whatever sizes libcurl delivers, and keeps the function's error if it throws.
///
/// `@unchecked Sendable`: a receiver is created by one read and used only by the thread running that read's
/// `curl_easy_perform` calls, one after the other; it never crosses threads while in use.
final class S3StreamReceiver: @unchecked Sendable {
    private let body: (UnsafeRawBufferPointer) throws -> Void
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    /// What the caller's function threw; the transfer stops at once.
    private(set) var failure: (any Error)?

    /// - Parameters:
    ///   - chunkSize: The size of every chunk but the last.
    ///   - body: Gets each chunk; the memory is valid only until it returns.
    init(chunkSize: Int, body: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.body = body
        self.buffer = .allocate(byteCount: max(chunkSize, 1), alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Takes the next bytes of the body; false when the caller's function threw (``failure`` holds its error).
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = min(buffer.count - filled, bytes.count - done)
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<filled + count])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[done..<done + count]))
            filled += count
            done += count
            if filled == buffer.count, !flush() { return false }
        }
        return true
    }

    /// Hands out what is buffered; false when the caller's function threw.
    @discardableResult
    func flush() -> Bool {
        guard filled > 0, failure == nil else { return failure == nil }
        defer { filled = 0 }
        do {
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
            return true
        } catch {
            failure = error
            return false
        }
    }
}
