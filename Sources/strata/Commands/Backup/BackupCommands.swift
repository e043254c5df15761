import Foundation
import Strata

/// What the backup verbs (`strata backup`, `snapshots`, `restore`, `forget`, `prune`, `check`) share besides
/// ``RepositoryAccess``: their JSON, and the warnings about repository files they left out.
enum BackupCommands {
    /// Says on standard error which metadata files `verb` left out because they cannot be read, and what repairs
    /// them.
    static func warn(about damaged: [DamagedFile], in verb: String) {
        for file in damaged {
            CommandLineTool.printError("strata \(verb): warning: \(file)")
        }
        if damaged.contains(where: { $0.kind == .index }) {
            CommandLineTool.printError(
                "strata \(verb): note: 'strata check --repair' rebuilds the index from the packs")
        }
        if damaged.contains(where: { $0.kind == .snapshot }) {
            CommandLineTool.printError(
                "strata \(verb): note: put a damaged snapshot file back from a copy of the repository, or remove it "
                    + "with 'strata forget ID'")
        }
    }
}
