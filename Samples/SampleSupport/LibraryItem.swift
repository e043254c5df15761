public import Strata

/// One value a sample stores: its key, a label to print, its bytes and what it is.
///
/// The descriptor says what the value is (a file, a preference, a credential, a record); ``StorageSelector``
/// decides where it goes, never the sample.
public struct LibraryItem: Sendable {
    /// The store key.
    public var key: String
    /// What the sample prints for it.
    public var label: String
    /// The bytes.
    public var value: Data
    /// What it is. Its estimated size is the value's size.
    public var descriptor: DataDescriptor
    /// The tier the sample's own design expects, checked after the selector decided; `nil` for an imported
    /// user's file, which may go anywhere.
    public var expectedTier: Tier?

    /// Creates an item; the descriptor's estimate becomes the value's real size.
    public init(key: String, label: String, value: Data, descriptor: DataDescriptor, expectedTier: Tier? = nil) {
        self.key = key
        self.label = label
        self.value = value
        self.descriptor = descriptor
        self.descriptor.estimatedSize = value.count
        self.expectedTier = expectedTier
    }

    /// A record of metadata, as JSON: structured and queried, so the selector sends it to records.
    /// - Throws: When the record cannot be encoded.
    public static func metadata(_ record: some Encodable, key: String, label: String) throws -> LibraryItem {
        LibraryItem(
            key: key, label: label, value: try JSONEncoder().encode(record),
            descriptor: DataDescriptor(kind: .structured, estimatedSize: 0, isQueried: true), expectedTier: .records)
    }

    /// Media types of the file-like extensions a library folder may hold.
    static let fileTypes = [
        "pdf": "application/pdf", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "wav": "audio/wav",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "mp4": "video/mp4", "zip": "application/zip",
        "gz": "application/gzip",
    ]

    /// Describes a library file by its name: a media extension is a file, `.json` a queried record, `.token`,
    /// `.key` or `.password` a credential, anything else a preference (which the selector sends to files when it
    /// is over the defaults budget).
    public static func describing(name: String, value: Data) -> DataDescriptor {
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if let type = fileTypes[suffix] {
            return DataDescriptor(kind: .file, estimatedSize: value.count, contentType: type)
        }
        switch suffix {
        case "json": return DataDescriptor(kind: .structured, estimatedSize: value.count, isQueried: true)
        case "token", "key", "password": return DataDescriptor(kind: .credential, estimatedSize: value.count)
        default: return DataDescriptor(kind: .preference, estimatedSize: value.count)
        }
    }

    /// Every regular file of a folder (not its subfolders), sorted by name, as items under `prefix`.
    /// - Throws: When the folder cannot be listed or a file read.
    public static func items(inFolder folder: String, prefix: String) throws -> [LibraryItem] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted().compactMap { name in
            var isFolder: ObjCBool = false
            let path = folder + "/" + name
            guard !name.hasPrefix("."), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
                !isFolder.boolValue
            else { return nil }
            let value = try Data(contentsOf: URL(fileURLWithPath: path))
            return LibraryItem(
                key: prefix + name, label: name, value: value, descriptor: describing(name: name, value: value))
        }
    }
}
