import StrataCore

/// Why an HTTP exchange produced no answer: the connection failed or was lost, a timeout ran out, or the caller's
/// file could not be read or written.
struct HTTPTransportFailure: Error, Sendable {
    enum Kind: Sendable {
        /// Connecting failed, or the connection broke mid-exchange: trying again may work.
        case connection
        /// The request's deadline or the stall limit ran out: trying again may work.
        case timeout
        /// The caller's file failed (``local`` holds the error): trying again would not help.
        case local
    }

    var kind: Kind
    /// libcurl's description of what happened.
    var message: String
    /// libcurl's result code.
    var curlCode: Int32
    /// The caller's file error, for ``Kind/local``.
    var local: StorageError?

    var isRetryable: Bool { kind != .local }
}
