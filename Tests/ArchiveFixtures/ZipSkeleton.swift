/// A zip archive built field by field, each field honest or a chosen lie: how the tests, the torture run and the
/// fuzz target make hostile archives on purpose (overflowing ZIP64 fields, duplicate names, lying counts).
///
/// ```swift
/// var entry = ZipSkeleton.Entry(name: "a.txt", content: Array("hello".utf8))
/// entry.zip64 = true
/// entry.size = UInt64.max          // the ZIP64 extra field lies about the size
/// let archive = ZipSkeleton(entries: [entry]).bytes()
/// ```
package struct ZipSkeleton: Sendable {
    /// One entry; each optional field is written instead of the true value when set.
    package struct Entry: Sendable {
        package var name: String
        package var content: [UInt8]
        /// Deflated (method 8) rather than stored (method 0).
        package var deflate = false
        package var size: UInt64?
        package var compressedSize: UInt64?
        package var offset: UInt64?
        package var crc: UInt32?
        /// Sizes and offset go in a ZIP64 extra field, the 32-bit fields saying 0xFFFFFFFF.
        package var zip64 = false
        /// General purpose bit 3: the local header has zero sizes, and a data descriptor follows the data.
        package var dataDescriptor = false
        /// The Unix mode in the external attributes (0o120777 makes a symbolic link).
        package var unixMode: UInt32 = 0o100644

        package init(name: String, content: [UInt8]) {
            self.name = name
            self.content = content
        }
    }

    package var entries: [Entry]
    /// Ends with a ZIP64 end record and locator (the classic end record saturated).
    package var zip64End = false
    /// Values written in the end record instead of the true ones.
    package var count: UInt64?
    package var directorySize: UInt64?
    package var directoryOffset: UInt64?

    package init(entries: [Entry], zip64End: Bool = false) {
        self.entries = entries
        self.zip64End = zip64End
    }

    /// The archive's bytes.
    package func bytes() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let payload =
                entry.deflate
                ? ArchiveBytes.deflate(entry.content) ?? entry.content : entry.content
            let crc = entry.crc ?? ArchiveBytes.crc32(entry.content)
            let size = entry.size ?? UInt64(entry.content.count)
            let compressed = entry.compressedSize ?? UInt64(payload.count)
            let offset = entry.offset ?? UInt64(out.count)
            let name = Array(entry.name.utf8)
            let flags = ArchiveBytes.zipUTF8Flag | (entry.dataDescriptor ? 8 : 0)
            let method: UInt16 = entry.deflate ? 8 : 0
            let version = UInt16(entry.zip64 ? 45 : 20)
            func narrow(_ value: UInt64) -> UInt32 { entry.zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: value) }

            let localExtra =
                entry.zip64
                ? ArchiveBytes.littleEndian(UInt16(1), 2) + ArchiveBytes.littleEndian(UInt16(16), 2) + le64(size)
                    + le64(compressed) : []
            out +=
                ArchiveBytes.littleEndian(ArchiveBytes.zipLocalSignature, 4) + ArchiveBytes.littleEndian(version, 2)
                + ArchiveBytes.littleEndian(flags, 2)
            out +=
                ArchiveBytes.littleEndian(method, 2) + ArchiveBytes.littleEndian(UInt16(0), 2)
                + ArchiveBytes.littleEndian(UInt16(0x21), 2)
            out += ArchiveBytes.littleEndian(entry.dataDescriptor ? 0 : crc, 4)
            out += ArchiveBytes.littleEndian(entry.dataDescriptor ? 0 : narrow(compressed), 4)
            out += ArchiveBytes.littleEndian(entry.dataDescriptor ? 0 : narrow(size), 4)
            out += ArchiveBytes.littleEndian(UInt16(truncatingIfNeeded: name.count), 2)
            out += ArchiveBytes.littleEndian(UInt16(localExtra.count), 2) + name + localExtra + payload
            if entry.dataDescriptor {
                out +=
                    ArchiveBytes.littleEndian(ArchiveBytes.zipDataDescriptorSignature, 4)
                    + ArchiveBytes.littleEndian(crc, 4)
                out +=
                    entry.zip64
                    ? le64(compressed) + le64(size)
                    : ArchiveBytes.littleEndian(narrow(compressed), 4) + ArchiveBytes.littleEndian(narrow(size), 4)
            }

            let centralExtra =
                entry.zip64
                ? ArchiveBytes.littleEndian(UInt16(1), 2) + ArchiveBytes.littleEndian(UInt16(24), 2) + le64(size)
                    + le64(compressed)
                    + le64(offset)
                : []
            central +=
                ArchiveBytes.littleEndian(ArchiveBytes.zipCentralSignature, 4)
                + ArchiveBytes.littleEndian(UInt16(3 << 8 | 45), 2)
            central +=
                ArchiveBytes.littleEndian(version, 2) + ArchiveBytes.littleEndian(flags, 2)
                + ArchiveBytes.littleEndian(method, 2)
            central +=
                ArchiveBytes.littleEndian(UInt16(0), 2) + ArchiveBytes.littleEndian(UInt16(0x21), 2)
                + ArchiveBytes.littleEndian(crc, 4)
            central += ArchiveBytes.littleEndian(narrow(compressed), 4) + ArchiveBytes.littleEndian(narrow(size), 4)
            central += ArchiveBytes.littleEndian(UInt16(truncatingIfNeeded: name.count), 2)
            central +=
                ArchiveBytes.littleEndian(UInt16(centralExtra.count), 2) + ArchiveBytes.littleEndian(UInt16(0), 2)
            central += ArchiveBytes.littleEndian(UInt16(0), 2) + ArchiveBytes.littleEndian(UInt16(0), 2)
            central += ArchiveBytes.littleEndian(entry.unixMode << 16, 4) + ArchiveBytes.littleEndian(narrow(offset), 4)
            central += name + centralExtra
        }
        let start = UInt64(out.count)
        out += central
        let count = self.count ?? UInt64(entries.count)
        let size = directorySize ?? UInt64(central.count)
        let offset = directoryOffset ?? start
        if zip64End {
            let record = UInt64(out.count)
            out += ArchiveBytes.littleEndian(ArchiveBytes.zip64EndSignature, 4) + le64(44)
            out += ArchiveBytes.littleEndian(UInt16(3 << 8 | 45), 2) + ArchiveBytes.littleEndian(UInt16(45), 2)
            out += ArchiveBytes.littleEndian(UInt32(0), 4) + ArchiveBytes.littleEndian(UInt32(0), 4)
            out += le64(count) + le64(count) + le64(size) + le64(offset)
            out +=
                ArchiveBytes.littleEndian(ArchiveBytes.zip64LocatorSignature, 4)
                + ArchiveBytes.littleEndian(UInt32(0), 4) + le64(record)
            out += ArchiveBytes.littleEndian(UInt32(1), 4)
        }
        out += ArchiveBytes.littleEndian(ArchiveBytes.zipEndSignature, 4) + ArchiveBytes.littleEndian(UInt32(0), 4)
        let count16 = zip64End ? 0xFFFF : UInt16(truncatingIfNeeded: count)
        out += ArchiveBytes.littleEndian(count16, 2) + ArchiveBytes.littleEndian(count16, 2)
        out += ArchiveBytes.littleEndian(zip64End ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: size), 4)
        out += ArchiveBytes.littleEndian(zip64End ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: offset), 4)
        return out + ArchiveBytes.littleEndian(UInt16(0), 2)
    }

    private func le64(_ value: UInt64) -> [UInt8] { ArchiveBytes.littleEndian(value, 8) }
}
