/// What the selector knows about a value: its kind, size, sensitivity and shape.
///
/// ```swift
/// let token = DataDescriptor(kind: .credential, estimatedSize: 40)
/// let report = DataDescriptor(kind: .file, estimatedSize: 2_000_000, contentType: "application/pdf")
/// ```
public struct DataDescriptor: Sendable, Hashable, Codable {
    /// What kind of data this is.
    public var kind: DataKind
    /// About how many bytes the value takes when stored.
    public var estimatedSize: Int
    /// Whether the value is sensitive (a token, a key, personal secrets) whatever its kind.
    /// The default is `true` for ``DataKind/credential`` and `false` otherwise.
    public var isSensitive: Bool
    /// The media type, when the value is file-like (`application/pdf`, `audio/wav`, `image/png`).
    public var contentType: String?
    /// Whether structured data is flat (a few fields, no nesting, not queried). The default is `false`.
    public var isFlat: Bool
    /// Whether the app queries into the data (filters, sorts, joins). The default is `false`.
    public var isQueried: Bool
    /// Whether a key name that looks like a credential (`showPasswordHint`, `tokenizerStyle`) is allowed in the
    /// defaults tier for this value: the explicit answer to a `sensitive-key` refusal when the value is not a
    /// credential. A store-wide list of such names is the store configuration's `allow-sensitive-key`. It never
    /// changes the tier the selector picks. The default is `false`.
    public var allowsSensitiveName: Bool
    /// Whether this value may replace a credential (a key the secrets tier holds, or that was put as a
    /// ``DataKind/credential``) in a tier that stores it in plaintext: the explicit answer to the `wrong-tier` refusal
    /// of a put that would take a credential out of the secrets tier. The default is `false`.
    public var allowsPlaintext: Bool

    /// Creates a descriptor.
    /// - Parameters:
    ///   - kind: What kind of data this is.
    ///   - estimatedSize: About how many bytes it takes.
    ///   - isSensitive: Whether it is sensitive; defaults to `kind == .credential`.
    ///   - contentType: Its media type, if known.
    ///   - isFlat: Whether structured data is flat and small enough to be a preference.
    ///   - isQueried: Whether the app queries into it.
    ///   - allowsSensitiveName: Whether the defaults tier may hold it under a credential-looking key name.
    ///   - allowsPlaintext: Whether it may replace a credential in a tier that stores plaintext.
    public init(
        kind: DataKind,
        estimatedSize: Int,
        isSensitive: Bool? = nil,
        contentType: String? = nil,
        isFlat: Bool = false,
        isQueried: Bool = false,
        allowsSensitiveName: Bool = false,
        allowsPlaintext: Bool = false
    ) {
        self.allowsPlaintext = allowsPlaintext
        self.kind = kind
        self.estimatedSize = estimatedSize
        self.isSensitive = isSensitive ?? (kind == .credential)
        self.contentType = contentType
        self.isFlat = isFlat
        self.isQueried = isQueried
        self.allowsSensitiveName = allowsSensitiveName
    }

    private enum CodingKeys: String, CodingKey {
        case kind, estimatedSize, isSensitive, contentType, isFlat, isQueried, allowsSensitiveName, allowsPlaintext
    }

    /// Decodes a descriptor; the fields added after the first version (``allowsSensitiveName``, ``allowsPlaintext``)
    /// may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try container.decode(DataKind.self, forKey: .kind),
            estimatedSize: try container.decode(Int.self, forKey: .estimatedSize),
            isSensitive: try container.decode(Bool.self, forKey: .isSensitive),
            contentType: try container.decodeIfPresent(String.self, forKey: .contentType),
            isFlat: try container.decode(Bool.self, forKey: .isFlat),
            isQueried: try container.decode(Bool.self, forKey: .isQueried),
            allowsSensitiveName: try container.decodeIfPresent(Bool.self, forKey: .allowsSensitiveName) ?? false,
            allowsPlaintext: try container.decodeIfPresent(Bool.self, forKey: .allowsPlaintext) ?? false)
    }

    /// Whether the content type names file-like media (documents, images, audio, video, archives).
    public var hasFileLikeContentType: Bool {
        guard let type = contentType?.lowercased() else { return false }
        let major = type.split(separator: "/").first.map(String.init) ?? type
        if ["image", "audio", "video", "font", "model"].contains(major) { return true }
        let fileLike = [
            "application/pdf", "application/zip", "application/gzip", "application/x-tar",
            "application/octet-stream", "application/epub+zip", "application/x-7z-compressed",
            "application/vnd.openxmlformats-officedocument", "application/msword", "application/rtf",
        ]
        return fileLike.contains { type.hasPrefix($0) }
    }
}
