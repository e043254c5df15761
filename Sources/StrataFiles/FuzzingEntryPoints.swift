package import Foundation
import StrataCore

/// What the fuzz targets call: the archive readers, on bytes an attacker controls.
package enum FilesFuzzing {
    /// Reads a zip archive's directory and every entry (output discarded), as an import would.
    package static func zip(_ data: Data, scratch: String) {
        guard (try? data.write(to: URL(fileURLWithPath: scratch))) != nil else { return }
        guard let reader = try? ZipReader(path: scratch, limits: ImportLimits(maximumTotalSize: 64 << 20)) else {
            return
        }
        defer { reader.close() }
        guard let entries = try? reader.entries() else { return }
        for entry in entries where !entry.isDirectory {
            _ = try? StoragePaths.validateKey(entry.name)
            _ = try? reader.extract(entry) { _ in }
        }
    }

    /// Inflates gzip data with the import's limits.
    package static func gzip(_ data: Data) {
        guard let inflater = try? Zlib.Inflater(gzip: true) else { return }
        var produced = 0
        _ = try? data.withUnsafeBytes { bytes in
            try inflater.feed(bytes) { output in
                produced += output.count
                if produced > 64 << 20 { throw StorageError(.limitExceeded, "too large") }
            }
        }
    }
}
