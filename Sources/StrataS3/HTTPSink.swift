import StrataSystem

/// Where a response's body goes: memory (for XML answers), an open file (written with `pwrite` from `offset`), or
/// a caller's function in chunks (``S3StreamReceiver``).
///
/// An error answer (a status outside 2xx) always goes to memory, so the file or the function never receives an
/// error document.
enum HTTPSink: Sendable {
    case memory
    case descriptor(FileDescriptor, offset: Int64)
    case stream(S3StreamReceiver)

    /// Whether a transfer cut short can go on where it stopped (a ranged request for the rest, pinned to the first
    /// answer's entity tag) rather than start over: true when the bytes already went out of the client's hands.
    var resumes: Bool {
        switch self {
        case .memory: false
        case .descriptor, .stream: true
        }
    }
}
