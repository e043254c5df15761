import StrataPostgresClient

/// A connection one thread holds locks on; only that thread uses it.
final class HeldSession: @unchecked Sendable {
    let connection: PostgresConnection
    init(_ connection: PostgresConnection) { self.connection = connection }
}
