/// What an operation of a linearizability history asked of one key, modeled as a register that holds no value or
/// one value (an identifier: the bytes a test wrote are named by the identifier it wrote in them).
///
/// `list` stands for a listing of keys (`keys(prefix:)`) projected onto one key: the listing is read as "the key
/// exists" or "it does not". That projection checks each key's history alone (linearizability is local), not that
/// a listing is one atomic snapshot of several keys.
public enum LinearizabilityCall: Sendable, Hashable, Codable {
    /// Writes a value; answered ``LinearizabilityResponse/ok``.
    case put(String)
    /// Reads the value; answered ``LinearizabilityResponse/value(_:)``.
    case get
    /// Removes the value; answered ``LinearizabilityResponse/existed(_:)`` (whether there was one).
    case delete
    /// Moves the key to another tier, leaving its value as it is; answered ``LinearizabilityResponse/ok`` or
    /// ``LinearizabilityResponse/notFound``.
    case move(String)
    /// A listing of keys under a prefix, read for this key; answered ``LinearizabilityResponse/listed(_:)``.
    case list(prefix: String)

    /// Whether the call can change the register (a write whose effect is unknown still matters; a read's does not).
    var writes: Bool {
        switch self {
        case .put, .delete: true
        case .get, .move, .list: false
        }
    }

    /// Whether `response` is an answer this call can give.
    func accepts(_ response: LinearizabilityResponse) -> Bool {
        switch (self, response) {
        case (_, .failed), (.put, .ok), (.get, .value), (.delete, .existed), (.move, .ok), (.move, .notFound),
            (.list, .listed), (.put, .refused), (.move, .refused):
            true
        default: false
        }
    }

    /// A short form for explanations: `put(v3)`, `get`, `move(records)`.
    var text: String {
        switch self {
        case .put(let value): "put(\(value))"
        case .get: "get"
        case .delete: "delete"
        case .move(let tier): "move(\(tier))"
        case .list(let prefix): "keys(\"\(prefix)\")"
        }
    }
}
