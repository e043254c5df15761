internal import CStrataSystem

// Early write-back, through CStrataSystem (Glibc's Swift module leaves the GNU `sync_file_range` out).
extension Sys {
    /// Starts writing a byte range of the file's dirty pages to disk without waiting, so the disk works while
    /// the writer goes on and the final `fsync` finds little left to do. It makes nothing durable (no metadata,
    /// no wait): advice only, so a failure is ignored. Nothing happens where the call does not exist (Darwin).
    package static func startWriteback(_ fd: FileDescriptor, offset: Int, count: Int, path: String? = nil) {
        _ = try? retrying(.writeback, path) {
            strata_start_writeback(fd.rawValue, Int64(offset), Int64(count))
        }
    }
}
