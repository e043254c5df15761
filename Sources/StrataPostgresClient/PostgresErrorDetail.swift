import Foundation
public import StrataCore

/// What a PostgreSQL error adds to a ``/StrataCore/StorageError``: the server's SQLSTATE and constraint, and how
/// long the call (or the retried transaction) ran. Read it as `error.postgres`, or the SQLSTATE alone as
/// `error.sqlState`.
///
/// ```swift
/// } catch let error as StorageError where error.sqlState == "23505" {
///     print("taken (\(error.postgres?.constraint ?? "?"))")
/// }
/// ```
public struct PostgresErrorDetail: StorageErrorDetail {
    /// PostgreSQL's five-character error code (`23505`, `40001`, `28P01`, …), for an error the server (or libpq)
    /// reported.
    public var sqlState: String?
    /// The constraint the statement broke, when the server named one.
    public var constraint: String?
    /// How many times the transaction ran before it failed, when it was retried.
    public var attempts: Int?
    /// How long the call or the transaction ran before it failed, in seconds, when a deadline or a retry budget
    /// ended it.
    public var elapsed: Double?

    /// Creates a detail; every part is optional.
    public init(sqlState: String? = nil, constraint: String? = nil, attempts: Int? = nil, elapsed: Double? = nil) {
        self.sqlState = sqlState
        self.constraint = constraint
        self.attempts = attempts
        self.elapsed = elapsed
    }

    /// `code 1234, 3 attempt(s), 0.250 s`: the parts there are. The code is the SQLSTATE packed six bits per
    /// character, as PostgreSQL's `MAKE_SQLSTATE` does (the message names the SQLSTATE itself); the constraint is in
    /// the message.
    public var description: String {
        var parts: [String] = []
        if let code = sqlState.flatMap(Self.packed) { parts.append("code \(code)") }
        if let attempts { parts.append("\(attempts) attempt(s)") }
        if let elapsed { parts.append(String(format: "%.3f s", elapsed)) }
        return parts.joined(separator: ", ")
    }

    static func packed(_ state: String) -> Int32? {
        let bytes = Array(state.utf8)
        guard bytes.count == 5 else { return nil }
        return bytes.enumerated().reduce(Int32(0)) { $0 | (Int32((Int(($1.element &- 48)) & 0x3F)) << ($1.offset * 6)) }
    }
}

extension StorageError {
    /// What the PostgreSQL server reported and how long the call ran, for an error of a PostgreSQL engine; `nil`
    /// for others.
    public var postgres: PostgresErrorDetail? { detail as? PostgresErrorDetail }

    /// PostgreSQL's SQLSTATE for an error that came from the server (`23505`, `40001`, `28P01`, …), or `nil`.
    public var sqlState: String? { postgres?.sqlState }

    /// Whether the error says the connection is gone (rather than that a statement failed).
    package var isConnectionLoss: Bool { code == .connectionFailed || code == .timeout }

    /// Changes the PostgreSQL detail, starting from an empty one.
    package mutating func updatePostgres(_ change: (inout PostgresErrorDetail) -> Void) {
        updateDetail(PostgresErrorDetail(), change)
    }
}
