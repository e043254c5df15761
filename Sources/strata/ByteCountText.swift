import Foundation
import Strata

/// Prints a byte count as `512 B`, `47 KiB` or `3 MiB`.
struct ByteCountText: CustomStringConvertible {
    var bytes: Int
    init(_ bytes: Int) { self.bytes = bytes }
    var description: String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return "\(bytes >> 10) KiB" }
        return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }
}
