import Foundation
import StrataCore
package import StrataFiles
package import StrataSystem

// The store's fast paths on a local folder (see `LocalFastPaths`).
extension PosixFileEngine: LocalFastPaths {
    /// The tier folder: a staging file there is a temporary of this process, removed if it dies.
    package func scratchFolder() throws -> DirectoryHandle { try tierFolder() }

    package func beginImport() throws -> any ImportTransaction { try PosixImport(self) }
}
