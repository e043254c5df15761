/// A gzip file built member by member (RFC 1952), each trailer honest or a chosen lie, with optional bytes after
/// the last member: how the tests, the torture run and the fuzz target make multi-member and damaged gzip files.
///
/// ```swift
/// var file = GzipSkeleton(members: [.init(content: Array("a".utf8)), .init(content: Array("b".utf8))])
/// file.trailing = [0x42]            // garbage after the last member
/// let bytes = file.bytes()
/// ```
package struct GzipSkeleton: Sendable {
    /// One member; `crc` and `size` replace the true trailer values when set.
    package struct Member: Sendable {
        package var content: [UInt8]
        package var crc: UInt32?
        package var size: UInt32?
        /// An original file name in the header (FNAME).
        package var fileName: String?
        /// An extra field in the header (FEXTRA).
        package var extra: [UInt8]?

        package init(content: [UInt8], fileName: String? = nil) {
            self.content = content
            self.fileName = fileName
        }
    }

    package var members: [Member]
    /// Bytes after the last member.
    package var trailing: [UInt8] = []

    package init(members: [Member], trailing: [UInt8] = []) {
        self.members = members
        self.trailing = trailing
    }

    /// The concatenation of every member's content: what a correct reader produces.
    package var content: [UInt8] { members.flatMap(\.content) }

    /// Whether a correct reader must accept the file: every trailer true and nothing after the last member.
    package var isHonest: Bool {
        trailing.isEmpty
            && members.allSatisfy { member in
                member.crc.map { $0 == ArchiveBytes.crc32(member.content) } ?? true
                    && member.size.map { $0 == UInt32(truncatingIfNeeded: member.content.count) } ?? true
            }
    }

    /// The file's bytes.
    package func bytes() -> [UInt8] {
        var out: [UInt8] = []
        for member in members {
            var flags: UInt8 = 0
            if member.extra != nil { flags |= 4 }
            if member.fileName != nil { flags |= 8 }
            out += [0x1F, 0x8B, 8, flags, 0, 0, 0, 0, 0, 3]
            if let extra = member.extra {
                out += ArchiveBytes.littleEndian(UInt16(truncatingIfNeeded: extra.count), 2) + extra.prefix(0xFFFF)
            }
            if let name = member.fileName { out += Array(name.utf8).filter { $0 != 0 } + [0] }
            out += ArchiveBytes.deflate(member.content) ?? []
            out += ArchiveBytes.littleEndian(member.crc ?? ArchiveBytes.crc32(member.content), 4)
            out += ArchiveBytes.littleEndian(member.size ?? UInt32(truncatingIfNeeded: member.content.count), 4)
        }
        return out + trailing
    }
}
