public import StrataCore

extension StorageError {
    /// PostgreSQL's SQLSTATE for an error that came from the server (`23505`, `40001`, `28P01`, …), or `nil`.
    ///
    /// ``/StrataCore/StorageError/underlyingCode`` holds it packed six bits per character, as PostgreSQL's own
    /// `MAKE_SQLSTATE` does.
    public var sqlState: String? {
        guard message.contains("[SQLSTATE "), let packed = underlyingCode else { return nil }
        let scalars = (0..<5).map { UnicodeScalar(UInt8((Int(packed) >> ($0 * 6)) & 0x3F) &+ 48) }
        return String(String.UnicodeScalarView(scalars))
    }

    static func packSQLState(_ state: String) -> Int32? {
        let bytes = Array(state.utf8)
        guard bytes.count == 5 else { return nil }
        return bytes.enumerated().reduce(Int32(0)) { $0 | (Int32((Int(($1.element &- 48)) & 0x3F)) << ($1.offset * 6)) }
    }
}

extension StorageError {
    /// Whether the error says the connection is gone (rather than that a statement failed).
    package var isConnectionLoss: Bool { code == .connectionFailed || code == .timeout }
}
