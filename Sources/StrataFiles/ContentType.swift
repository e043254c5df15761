/// Media types from file extensions and, failing that, from the first bytes.
public enum ContentType {
    static let byExtension: [String: String] = [
        "pdf": "application/pdf", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "svg": "image/svg+xml", "wav": "audio/wav", "mp3": "audio/mpeg",
        "m4a": "audio/mp4", "aac": "audio/aac", "flac": "audio/flac", "ogg": "audio/ogg", "opus": "audio/opus",
        "mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "txt": "text/plain", "md": "text/markdown",
        "csv": "text/csv", "html": "text/html", "json": "application/json", "jsonl": "application/jsonl",
        "xml": "application/xml", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "plist": "application/x-plist", "sqlite": "application/vnd.sqlite3",
    ]

    /// The media type of a file named `key` whose first bytes (16 are enough) are `head`: by the key's
    /// extension, else by the bytes, else `application/octet-stream`.
    public static func of(key: String, head: [UInt8]) -> String {
        if let dot = key.lastIndex(of: "."), !key[dot...].contains("/") {
            if let type = byExtension[key[key.index(after: dot)...].lowercased()] { return type }
        }
        return sniff(head)
    }

    static func sniff(_ head: [UInt8]) -> String {
        func starts(_ bytes: [UInt8]) -> Bool { head.starts(with: bytes) }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), head.count >= 12, Array(head[8..<12]) == Array("WAVE".utf8) {
            return "audio/wav"
        }
        if starts(Array("RIFF".utf8)), head.count >= 12, Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if starts(Array("ID3".utf8)) || starts([0xFF, 0xFB]) { return "audio/mpeg" }
        if starts(Array("fLaC".utf8)) { return "audio/flac" }
        if starts(Array("OggS".utf8)) { return "audio/ogg" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if starts([0x1F, 0x8B]) { return "application/gzip" }
        if starts(Array("bplist00".utf8)) { return "application/x-plist" }
        if starts(Array("SQLite format 3".utf8)) { return "application/vnd.sqlite3" }
        return "application/octet-stream"
    }

    /// Whether data of this type is already compressed (deflating it again gains nothing).
    static func isCompressed(_ type: String) -> Bool {
        type.hasPrefix("image/") && type != "image/svg+xml" || type.hasPrefix("video/")
            || [
                "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/opus", "audio/flac", "application/zip",
                "application/gzip",
            ].contains(type)
    }
}
