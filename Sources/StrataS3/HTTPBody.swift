import StrataSystem

/// What a request sends: nothing, bytes in memory, a streamed write's part buffer, or a range of an open file read
/// as it goes out.
enum HTTPBody: Sendable {
    case empty
    case bytes([UInt8])
    /// The bytes a part buffer holds; the buffer is not refilled until the request is over.
    case part(S3PartBuffer)
    /// `length` bytes of the descriptor from `offset`, read with `pread` (the caller's file position is untouched).
    case descriptor(FileDescriptor, offset: Int64, length: Int64)

    var length: Int64 {
        switch self {
        case .empty: 0
        case .bytes(let bytes): Int64(bytes.count)
        case .part(let buffer): Int64(buffer.count)
        case .descriptor(_, _, let length): length
        }
    }
}
