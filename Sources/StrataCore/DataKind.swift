/// What kind of data a value is, as the decision table sees it.
public enum DataKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A user preference or light configuration value (a flag, a theme, a timestamp).
    case preference
    /// A token, password, key or other credential.
    case credential
    /// Structured data: records with fields.
    case structured
    /// Structured data with relations between records.
    case relational
    /// File-like data: documents, images, recordings, exports.
    case file

    public var description: String { rawValue }
}
