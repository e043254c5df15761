package import Foundation
import StrataCore
package import StrataSystem

/// What an engine that keeps its files in a local folder offers the store beyond ``FileEngine``, so that the store's
/// engine-neutral code runs as fast as the disk there: reads into memory that is handed out without a copy, a
/// folder for the staging file of an async write, and imports staged in the tier and committed by `rename(2)`.
///
/// `PosixFileEngine` (module `StrataLocalFiles`) adopts it; the store falls back to the engine's own operations on
/// any other engine.
package protocol LocalFastPaths: FileEngine {
    /// Streams a file to `body` in chunks of `chunkSize`, each read straight into the memory of the `Data` handed
    /// out (`body` may keep it).
    /// - Returns: The number of bytes read.
    func read(_ key: String, chunkSize: Int, chunks body: (Data) throws -> Void) throws -> Int

    /// The folder where an async write stages its bytes before it takes the key's lock (on the same file system
    /// as the files, so that a dead writer's staging file is removed with its temporaries).
    func scratchFolder() throws -> DirectoryHandle

    /// Starts an import: a staging folder in the tier, committed into place by `rename(2)`.
    func beginImport() throws -> any ImportTransaction
}
