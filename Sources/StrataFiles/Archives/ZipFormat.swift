import Foundation

/// The byte layouts of PKWARE's APPNOTE: local and central headers, the end records, ZIP64 and the extended
/// timestamp field.
enum ZipFormat {
    static let localSignature: UInt32 = 0x0403_4B50
    static let centralSignature: UInt32 = 0x0201_4B50
    static let endSignature: UInt32 = 0x0605_4B50
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    static let dataDescriptorSignature: UInt32 = 0x0807_4B50
    static let utf8Flag: UInt16 = 1 << 11
    /// General purpose bit 3: the local header's CRC and sizes are zero, and a data descriptor follows the data.
    static let dataDescriptorFlag: UInt16 = 1 << 3

    /// One entry as it is written: what its local and central headers record.
    struct Record {
        var name: String
        var method: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var offset: Int
        /// Seconds since 1970.
        var modified: Int
        /// Its CRC and sizes follow its data in a data descriptor (a streamed entry, written in one pass).
        var isDeferred = false
        /// Unix mode and type for the external attributes.
        var mode: UInt32 = 0o100644
    }

    /// MS-DOS time and date (local time, 2-second resolution, from 1980).
    static func dosDateTime(_ seconds: Int) -> (time: UInt16, date: UInt16) {
        var time = time_t(max(seconds, 315_532_800))
        var parts = tm()
        localtime_r(&time, &parts)
        let dosTime = UInt16(parts.tm_hour) << 11 | UInt16(parts.tm_min) << 5 | UInt16(parts.tm_sec / 2)
        let dosDate = UInt16(max(parts.tm_year - 80, 0)) << 9 | UInt16(parts.tm_mon + 1) << 5 | UInt16(parts.tm_mday)
        return (dosTime, dosDate)
    }

    static func timestampField(_ seconds: Int) -> [UInt8] {
        littleEndian(UInt16(0x5455), 2) + littleEndian(UInt16(5), 2) + [1]
            + littleEndian(UInt32(truncatingIfNeeded: seconds), 4)
    }

    static func localHeader(_ entry: Record, zip64: Bool) -> [UInt8] {
        let name = Array(entry.name.utf8)
        let (time, date) = dosDateTime(entry.modified)
        var extra = timestampField(entry.modified)
        if zip64 {
            extra += littleEndian(UInt16(1), 2) + littleEndian(UInt16(16), 2)
            extra += littleEndian(UInt64(entry.size), 8) + littleEndian(UInt64(entry.compressedSize), 8)
        }
        var out = littleEndian(localSignature, 4)
        out += littleEndian(UInt16(zip64 ? 45 : 20), 2)
        out += littleEndian(utf8Flag | (entry.isDeferred ? dataDescriptorFlag : 0), 2)
        out += littleEndian(entry.method, 2)
        out += littleEndian(time, 2) + littleEndian(date, 2)
        if entry.isDeferred {
            out += [UInt8](repeating: 0, count: 12)  // CRC and sizes: in the data descriptor.
        } else {
            out += littleEndian(entry.crc, 4)
            out += littleEndian(UInt32(zip64 ? 0xFFFF_FFFF : entry.compressedSize), 4)
            out += littleEndian(UInt32(zip64 ? 0xFFFF_FFFF : entry.size), 4)
        }
        out += littleEndian(UInt16(name.count), 2) + littleEndian(UInt16(extra.count), 2)
        return out + name + extra
    }

    /// The data descriptor after a deferred entry's data: its CRC and sizes, 8 bytes each once either passes 4 GiB
    /// (the central header then has them in its ZIP64 field too).
    static func dataDescriptor(_ entry: Record) -> [UInt8] {
        var out = littleEndian(dataDescriptorSignature, 4) + littleEndian(entry.crc, 4)
        if entry.size >= 0xFFFF_FFFF || entry.compressedSize >= 0xFFFF_FFFF {
            return out + littleEndian(UInt64(entry.compressedSize), 8) + littleEndian(UInt64(entry.size), 8)
        }
        out += littleEndian(UInt32(entry.compressedSize), 4) + littleEndian(UInt32(entry.size), 4)
        return out
    }

    static func centralHeader(_ entry: Record, threshold: Int = 0xFFFF_FFFF) -> [UInt8] {
        let name = Array(entry.name.utf8)
        let (time, date) = dosDateTime(entry.modified)
        let bigSize = entry.size >= threshold || entry.compressedSize >= threshold
        let bigOffset = entry.offset >= threshold
        var extra = timestampField(entry.modified)
        if bigSize || bigOffset {
            var values: [UInt8] = []
            if bigSize { values += littleEndian(UInt64(entry.size), 8) + littleEndian(UInt64(entry.compressedSize), 8) }
            if bigOffset { values += littleEndian(UInt64(entry.offset), 8) }
            extra += littleEndian(UInt16(1), 2) + littleEndian(UInt16(values.count), 2) + values
        }
        var out = littleEndian(centralSignature, 4)
        out += littleEndian(UInt16(3 << 8 | 45), 2)  // Made by Unix, spec 4.5.
        out += littleEndian(UInt16(bigSize || bigOffset ? 45 : 20), 2)
        out += littleEndian(utf8Flag | (entry.isDeferred ? dataDescriptorFlag : 0), 2)
        out += littleEndian(entry.method, 2)
        out += littleEndian(time, 2) + littleEndian(date, 2)
        out += littleEndian(entry.crc, 4)
        out += littleEndian(UInt32(bigSize ? 0xFFFF_FFFF : entry.compressedSize), 4)
        out += littleEndian(UInt32(bigSize ? 0xFFFF_FFFF : entry.size), 4)
        out += littleEndian(UInt16(name.count), 2) + littleEndian(UInt16(extra.count), 2)
        out += littleEndian(UInt16(0), 2)  // Comment length.
        out += littleEndian(UInt16(0), 2) + littleEndian(UInt16(0), 2)  // Disk, internal attributes.
        // External attributes: the Unix mode above, and MS-DOS's folder bit below for a folder.
        out += littleEndian(entry.mode << 16 | (entry.mode & 0o170000 == 0o040000 ? 0x10 : 0), 4)
        out += littleEndian(UInt32(bigOffset ? 0xFFFF_FFFF : entry.offset), 4)
        return out + name + extra
    }

    /// The central directory of `entries` starting at `start`, and the end records after it (ZIP64 ones when the
    /// count, the start or the size need them).
    static func centralDirectory(_ entries: [Record], start: Int, threshold: Int = 0xFFFF_FFFF) -> [UInt8] {
        var out: [UInt8] = []
        for entry in entries { out += centralHeader(entry, threshold: threshold) }
        let size = out.count
        if entries.count >= 0xFFFF || start >= 0xFFFF_FFFF || size >= 0xFFFF_FFFF {
            let record = start + out.count
            out += zip64End(count: entries.count, size: size, offset: start)
            out += zip64Locator(recordOffset: record)
        }
        return out + end(count: entries.count, size: size, offset: start)
    }

    static func zip64End(count: Int, size: Int, offset: Int) -> [UInt8] {
        var out = littleEndian(zip64EndSignature, 4) + littleEndian(UInt64(44), 8)
        out += littleEndian(UInt16(3 << 8 | 45), 2) + littleEndian(UInt16(45), 2)
        out += littleEndian(UInt32(0), 4) + littleEndian(UInt32(0), 4)
        out += littleEndian(UInt64(count), 8) + littleEndian(UInt64(count), 8)
        out += littleEndian(UInt64(size), 8) + littleEndian(UInt64(offset), 8)
        return out
    }

    static func zip64Locator(recordOffset: Int) -> [UInt8] {
        littleEndian(zip64LocatorSignature, 4) + littleEndian(UInt32(0), 4) + littleEndian(UInt64(recordOffset), 8)
            + littleEndian(UInt32(1), 4)
    }

    static func end(count: Int, size: Int, offset: Int) -> [UInt8] {
        var out = littleEndian(endSignature, 4) + littleEndian(UInt16(0), 2) + littleEndian(UInt16(0), 2)
        let entries = UInt16(min(count, 0xFFFF))
        out += littleEndian(entries, 2) + littleEndian(entries, 2)
        out += littleEndian(UInt32(min(size, 0xFFFF_FFFF)), 4) + littleEndian(UInt32(min(offset, 0xFFFF_FFFF)), 4)
        return out + littleEndian(UInt16(0), 2)
    }
}
