/// The limits of one HTTP exchange, in the units libcurl takes.
struct HTTPTimeouts: Sendable {
    var totalMilliseconds: Int
    var connectMilliseconds: Int
    /// Abandon a transfer that moved less than one byte per second for this many seconds.
    var stallSeconds: Int
}
