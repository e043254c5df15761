#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The permission bits of a file or folder, as `chmod` takes them (`0o600`: read and write for the owner only).
///
/// ```swift
/// let fd = try Sys.open(path, .writeOnly, [.create, .exclusive], permissions: 0o640)
/// ```
package struct FilePermissions: OptionSet, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The bits, as in `mode_t` (only the low twelve mean anything here).
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The permissions written as an octal literal: `0o600` (bits past the low twelve are dropped).
    package init(integerLiteral value: UInt32) { rawValue = value & 0o7777 }

    /// The permissions of a mode written as a number (`0o640`); bits past the low twelve are dropped.
    package init(_ mode: Int) { rawValue = UInt32(truncatingIfNeeded: mode) & 0o7777 }

    package static let ownerRead = FilePermissions(rawValue: 0o400)
    package static let ownerWrite = FilePermissions(rawValue: 0o200)
    package static let ownerExecute = FilePermissions(rawValue: 0o100)
    package static let groupRead = FilePermissions(rawValue: 0o040)
    package static let groupWrite = FilePermissions(rawValue: 0o020)
    package static let groupExecute = FilePermissions(rawValue: 0o010)
    package static let otherRead = FilePermissions(rawValue: 0o004)
    package static let otherWrite = FilePermissions(rawValue: 0o002)
    package static let otherExecute = FilePermissions(rawValue: 0o001)

    /// `0o600`: a private file.
    package static let ownerReadWrite: FilePermissions = [.ownerRead, .ownerWrite]
    /// `0o700`: a private folder.
    package static let ownerReadWriteExecute: FilePermissions = [.ownerRead, .ownerWrite, .ownerExecute]

    /// The bits as the C library takes them.
    var mode: mode_t { mode_t(rawValue) }

    /// The bits in octal, as `chmod` writes them (`0o640`).
    package var description: String { "0o" + String(rawValue, radix: 8) }
}
