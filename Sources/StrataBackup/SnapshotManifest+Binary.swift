import Foundation
import StrataCore

// Format 2 of a snapshot's body (documented byte by byte in `Documentation/Backup.md`): a header, then each file's
// description and chunk ids, in binary.
extension SnapshotManifest {
    /// The smallest a file's entry can be: one byte for each of its eight fields.
    static let minimumEntrySize = 8
    /// The code of "no tier" (the store's own files).
    static let noTier: UInt8 = 255

    /// The body in format 2.
    func encoded() -> [UInt8] {
        var out = BinaryWriter(capacity: 256 + files.count * 64)
        out.varint(Self.version)
        out.fixed64(time.timeIntervalSince1970.bitPattern)
        out.string(host)
        out.string(parent ?? "")
        out.varint(metadata.count)
        for (name, value) in metadata.sorted(by: { ExactString($0.key) < ExactString($1.key) }) {
            out.string(name)
            out.string(value)
        }
        out.varint(reusedFiles)
        out.varint(addedBlobs)
        out.varint(UInt64(bitPattern: addedBytes))
        out.varint(files.count)
        out.varint(UInt64(bitPattern: files.reduce(0) { $0 &+ $1.file.size }))
        for entry in files {
            let file = entry.file
            out.string(file.path)
            out.byte(file.tier?.catalogCode ?? Self.noTier)
            out.varint(UInt64(file.mode))
            out.varint(UInt64(bitPattern: file.size))
            out.signed(file.modificationTime.seconds)
            out.varint(UInt64(UInt32(bitPattern: file.modificationTime.nanoseconds)))
            out.varint(file.extendedAttributes.count)
            for (name, value) in file.extendedAttributes.sorted(by: { ExactString($0.key) < ExactString($1.key) }) {
                out.string(name)
                out.data(value)
            }
            out.varint(entry.chunks.count)
            for chunk in entry.chunks { chunk.append(to: &out) }
        }
        return out.bytes
    }

    /// Decodes a body of format 2 and checks it (see ``refusal(of:total:)``): every count and length is checked
    /// against the bytes left before anything is allocated for it.
    /// - Throws: ``/StrataCore/StorageError`` `.unsupportedVersion`, or `.corrupt` naming the part (`attribute`) and
    ///   the file (`key`) at fault.
    static func decode(_ body: [UInt8], headerOnly: Bool, path: String) throws -> SnapshotManifest {
        var reader = BinaryReader(body)
        if let version = try? reader.varint("version"), version != UInt64(Self.version) {
            throw StorageError(
                .unsupportedVersion,
                "the snapshot has format version \(version); this Strata reads 1 and \(Self.version)",
                path: path, recovery: "Use a Strata that knows this snapshot format")
        }
        reader = BinaryReader(body)
        var current: String?
        do throws(BinaryReader.Damage) {
            return try decodeBody(&reader, headerOnly: headerOnly, current: &current)
        } catch {
            let whose = current.map { " (file \($0.escapedForDisplay))" } ?? ""
            throw damage(
                "the snapshot's \(error.part)\(whose) is damaged: \(error.reason)", part: error.part, file: current,
                path: path)
        }
    }

    private static func decodeBody(_ reader: inout BinaryReader, headerOnly: Bool, current: inout String?)
        throws(BinaryReader.Damage) -> SnapshotManifest
    {
        let version = try reader.varint("version")
        guard version == UInt64(Self.version) else {
            throw BinaryReader.Damage(part: "version", reason: "\(version) is not \(Self.version)")
        }
        let seconds = Double(bitPattern: try reader.fixed64("time"))
        guard let time = checkedTime(seconds) else {
            throw BinaryReader.Damage(part: "time", reason: "\(seconds) is not a time from 1970 to 9999")
        }
        let host = try reader.string("host")
        let parent = try reader.string("parent")
        var metadata: [String: String] = [:]
        for _ in 0..<(try reader.count("metadata", minimumSize: 2)) {
            let name = try reader.string("metadata")
            guard metadata.updateValue(try reader.string("metadata"), forKey: name) == nil else {
                throw BinaryReader.Damage(part: "metadata", reason: "the name \(name) appears twice")
            }
        }
        var manifest = SnapshotManifest(
            time: time, host: host, parent: parent.isEmpty ? nil : parent, metadata: metadata, files: [],
            reusedFiles: Int(try reader.integer("reusedFiles")), addedBlobs: Int(try reader.integer("addedBlobs")),
            addedBytes: try reader.integer("addedBytes"))
        manifest.fileCount = try reader.count("fileCount", minimumSize: minimumEntrySize)
        manifest.totalSize = try reader.integer("totalSize")
        if headerOnly { return manifest }
        manifest.files.reserveCapacity(manifest.fileCount)
        var total: Int64 = 0
        for _ in 0..<manifest.fileCount {
            current = nil
            let entry = try decodeEntry(&reader, current: &current)
            if let why = refusal(of: entry, total: &total) {
                throw BinaryReader.Damage(part: "size", reason: "the snapshot gives the file \(why)")
            }
            manifest.files.append(entry)
        }
        current = nil
        guard total == manifest.totalSize else {
            throw BinaryReader.Damage(
                part: "totalSize", reason: "the header says \(manifest.totalSize) bytes; the files add up to \(total)")
        }
        guard reader.isAtEnd else {
            throw BinaryReader.Damage(part: "end", reason: "\(reader.remaining) bytes follow the last file")
        }
        return manifest
    }

    /// One file's entry; `current` is its path once read, to name it in an error.
    private static func decodeEntry(_ reader: inout BinaryReader, current: inout String?) throws(BinaryReader.Damage)
        -> Entry
    {
        let path = try reader.string("path")
        current = path
        let code = try reader.byte("tier")
        let tier = Tier(catalogCode: code)
        guard tier != nil || code == noTier else {
            throw BinaryReader.Damage(part: "tier", reason: "\(code) is no tier's code")
        }
        let mode = UInt32(try reader.integer("mode", maximum: UInt64(UInt32.max)))
        let size = try reader.integer("size")
        let seconds = try reader.signed("modificationTime")
        let nanoseconds = Int32(try reader.integer("modificationTime", maximum: UInt64(Int32.max)))
        var attributes: [String: [UInt8]] = [:]
        for _ in 0..<(try reader.count("extendedAttributes", minimumSize: 2)) {
            let name = try reader.string("extendedAttributes")
            guard attributes.updateValue(Array(try reader.data("extendedAttributes")), forKey: name) == nil else {
                throw BinaryReader.Damage(part: "extendedAttributes", reason: "the name \(name) appears twice")
            }
        }
        let count = try reader.count("chunks", minimumSize: BlobID.size)
        var chunks: [BlobID] = []
        chunks.reserveCapacity(count)
        for _ in 0..<count { chunks.append(BlobID(try reader.raw(BlobID.size, "chunks"))!) }
        let file = CapturedFile(
            path: path, tier: tier, mode: mode, size: size,
            modificationTime: .init(seconds: seconds, nanoseconds: nanoseconds), extendedAttributes: attributes)
        return Entry(file, chunks: chunks)
    }
}
