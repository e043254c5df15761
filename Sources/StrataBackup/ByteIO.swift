import StrataCore
import StrataSystem

/// Whole-array reads and writes through the ``Sys`` seam, with its typed `Errno`.
enum ByteIO {
    /// Writes every byte of `bytes` at the descriptor's offset.
    static func write(_ fd: FileDescriptor, _ bytes: [UInt8], path: String?) throws(Errno) {
        var result: Result<Void, Errno> = .success(())
        bytes.withUnsafeBytes { buffer in
            do throws(Errno) { try Sys.writeAll(fd, buffer, path: path) } catch { result = .failure(error) }
        }
        try result.get()
    }

    /// One `pread` into `bytes[range]`.
    /// - Returns: The bytes read; 0 at the end of the file.
    static func pread(
        _ fd: FileDescriptor, into bytes: inout [UInt8], _ range: Range<Int>, at offset: Int64, path: String? = nil
    ) throws(Errno) -> Int {
        var result: Result<Int, Errno> = .success(0)
        bytes.withUnsafeMutableBytes { buffer in
            do throws(Errno) {
                result = .success(
                    try Sys.pread(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[range]), at: offset, path: path))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }
}
