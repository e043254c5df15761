// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    import StrataArchiveFixtures
    import StrataCore
    @testable import StrataFiles

    /// What the fuzz targets call: the archive readers, on bytes an attacker controls.
    ///
    /// Besides raw bytes, the targets take structured inputs: ``structuredZip(_:scratch:)`` and
    /// ``structuredGzip(_:)`` let the input's bytes choose the fields of a valid archive (each size, offset, count
    /// and checksum honest or one of the values that break readers: 0, 0xFFFFFFFF, near `Int.max`, near 2⁶⁴), so
    /// that libFuzzer explores header fields rather than spending its time on signatures.
    enum FilesFuzzing {
        /// Reads a zip archive as an import would: its directory, the import's plan (names, duplicates, clashes,
        /// total size), then every entry's data (output discarded); then as a ``ZipArchive`` does, from the file
        /// and from memory: listed, and each entry read by name.
        static func zip(_ data: Data, scratch: String) {
            guard (try? data.write(to: URL(fileURLWithPath: scratch))) != nil else { return }
            let limits = ImportLimits(maximumTotalSize: 64 << 20)
            if let reader = try? ZipReader(path: scratch, limits: limits) {
                defer { reader.close() }
                if let entries = try? reader.entries() {
                    _ = try? ImportPlan(entries: entries, prefix: "imported", limits: limits, archive: scratch)
                    for entry in entries where !entry.isDirectory {
                        _ = try? reader.extract(entry) { _ in }
                    }
                }
            }
            for archive in [
                try? ZipArchive(path: scratch, limits: limits), try? ZipArchive(data: data, limits: limits),
            ] {
                guard let archive else { continue }
                for entry in archive.entries {
                    _ = try? archive.read(entry.name) { _ in }
                }
            }
        }

        /// Builds a zip archive whose fields the input chooses, and reads it as ``zip(_:scratch:)`` does.
        static func structuredZip(_ data: Data, scratch: String) {
            zip(Data(decodeZip(data).bytes()), scratch: scratch)
        }

        /// Decompresses gzip data as an import does (every member, nothing after the last), with a size limit.
        static func gzip(_ data: Data) {
            var produced = 0
            var delivered = false
            _ = try? GzipReader.decompress(
                path: "fuzz",
                read: {
                    defer { delivered = true }
                    return delivered ? [] : [UInt8](data)
                },
                sink: { output in
                    produced += output.count
                    if produced > 64 << 20 { throw StorageError(.limitExceeded, "too large") }
                })
        }

        /// Builds a gzip file whose members the input chooses, and reads it as ``gzip(_:)`` does.
        static func structuredGzip(_ data: Data) {
            gzip(Data(decodeGzip(data).bytes()))
        }

        /// Reads the fuzz input field by field; past its end, every read is 0 (which keeps fields honest).
        struct Cursor {
            let bytes: [UInt8]
            var position = 0

            mutating func byte() -> UInt8 {
                defer { position += 1 }
                return position < bytes.count ? bytes[position] : 0
            }

            mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }

            mutating func u64() -> UInt64 { bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }

            /// `nil` (the honest value) most of the time, else a value that breaks careless arithmetic.
            mutating func lie() -> UInt64? {
                switch byte() % 16 {
                case 10: 0
                case 11: 0xFFFF_FFFF
                case 12: UInt64.max - UInt64(byte())
                case 13: UInt64(Int.max) - UInt64(byte())
                case 14: UInt64(byte())
                case 15: u64()
                default: nil
                }
            }
        }

        /// Names that exercise the import's plan: duplicates, file/folder clashes, traversal, NFC/NFD twins.
        static let names = [
            "a.txt", "a.txt", "d/", "d", "d/x", "d/x/y", "../x", "caf\u{E9}", "cafe\u{301}", "a//b", "./a", "/abs",
            ".strata-x", "e/\u{202E}f", "g\\h", "",
        ]

        static func decodeZip(_ data: Data) -> ZipSkeleton {
            var input = Cursor(bytes: [UInt8](data))
            let shape = input.byte()
            var entries: [ZipSkeleton.Entry] = []
            for _ in 0..<(1 + Int(input.byte() % 4)) {
                let flags = input.byte()
                let name = names[Int(input.byte()) % names.count]
                var entry = ZipSkeleton.Entry(name: name, content: input.bytes(Int(input.byte() % 64)))
                entry.deflate = flags & 1 != 0
                entry.zip64 = flags & 2 != 0
                entry.dataDescriptor = flags & 4 != 0
                if flags & 8 != 0 { entry.unixMode = 0o120777 }
                entry.size = input.lie()
                entry.compressedSize = input.lie()
                entry.offset = input.lie()
                if flags & 16 != 0 { entry.crc = UInt32(truncatingIfNeeded: input.u64()) }
                entries.append(entry)
            }
            var archive = ZipSkeleton(entries: entries, zip64End: shape & 1 != 0)
            archive.count = input.lie()
            archive.directorySize = input.lie()
            archive.directoryOffset = input.lie()
            return archive
        }

        static func decodeGzip(_ data: Data) -> GzipSkeleton {
            var input = Cursor(bytes: [UInt8](data))
            var members: [GzipSkeleton.Member] = []
            for _ in 0..<(1 + Int(input.byte() % 4)) {
                let flags = input.byte()
                var member = GzipSkeleton.Member(content: input.bytes(Int(input.byte() % 64)))
                if flags & 1 != 0 { member.crc = UInt32(truncatingIfNeeded: input.u64()) }
                if flags & 2 != 0 { member.size = input.lie().map { UInt32(truncatingIfNeeded: $0) } }
                if flags & 4 != 0 { member.fileName = "name" }
                if flags & 8 != 0 { member.extra = input.bytes(Int(input.byte() % 16)) }
                members.append(member)
            }
            let trailing = input.byte() % 4 == 0 ? input.bytes(Int(input.byte() % 8)) : []
            return GzipSkeleton(members: members, trailing: trailing)
        }
    }
#endif
