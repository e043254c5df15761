/// How an operation of a linearizability history was answered. A ``failed(_:)`` answer (an error) says nothing of
/// whether the operation took effect: the checker treats it like an operation that never answered.
public enum LinearizabilityResponse: Sendable, Hashable, Codable {
    /// A put or a move that did what it was asked.
    case ok
    /// What a get read: a value's identifier, or `nil` for no value.
    case value(String?)
    /// What a delete answered: whether there was a value to remove.
    case existed(Bool)
    /// A move of a key that had no value.
    case notFound
    /// Whether a listing held the key.
    case listed(Bool)
    /// A put or a move refused before it changed anything because of what the key holds (a credential, which no
    /// other tier takes): it did nothing, and the key had a value.
    case refused(String)
    /// An error, described: the operation may or may not have taken effect.
    case failed(String)

    /// A short form for explanations: `ok`, `v3`, `nil`, `true`.
    var text: String {
        switch self {
        case .ok: "ok"
        case .value(let value): value ?? "nil"
        case .existed(let existed): "\(existed)"
        case .notFound: "not found"
        case .listed(let listed): listed ? "listed" : "not listed"
        case .refused(let reason): "refused: \(reason)"
        case .failed(let message): "error: \(message)"
        }
    }
}
