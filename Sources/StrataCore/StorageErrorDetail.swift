/// What one engine adds to a ``StorageError``, beyond what every tier shares: an S3 service code and request id, a
/// PostgreSQL SQLSTATE, a SQLite result code, the attempts and time of a retried call.
///
/// An engine module declares its own detail type and a typed accessor for it (`error.s3`, `error.postgres`,
/// `error.sqlite`). ``StorageError/description`` prints the detail's `description` among the error's places, so
/// it is a comma-separated list of short parts (`code 404, service code "NoSuchKey"`), or empty; text that came
/// from outside (a server's code or id) is escaped for display (`escapedForDisplay`), as the error's own fields are.
public protocol StorageErrorDetail: Sendable, Hashable, CustomStringConvertible {}

extension StorageError {
    /// A detail of any kind, compared and hashed by its own `Hashable`.
    struct DetailBox: Hashable, Sendable {
        let detail: any StorageErrorDetail

        static func == (left: DetailBox, right: DetailBox) -> Bool {
            AnyHashable(left.detail) == AnyHashable(right.detail)
        }

        func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(detail)) }
    }

    /// Changes the detail of type `Detail`, starting from an empty one when the error has none (or one of another
    /// kind).
    /// - Parameters:
    ///   - empty: The detail to start from.
    ///   - change: Changes it.
    package mutating func updateDetail<Detail: StorageErrorDetail>(
        _ empty: @autoclosure () -> Detail, _ change: (inout Detail) -> Void
    ) {
        var current = detail as? Detail ?? empty()
        change(&current)
        detail = current
    }
}
