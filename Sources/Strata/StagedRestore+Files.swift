import StrataBackup
import StrataCatalog

// The files of a capture are written into the staged store's files folder, whatever engine held them: an S3 engine's
// capture lays its objects out as the folder engine lays out its files, so that any capture restores into a local
// store.
extension StagedRestore {
    /// Makes the staged store keep its files in its folder: a configuration that named another files engine (an S3
    /// URL) is made to name the folder engine, and every files-tier key of the catalog is recorded under it.
    static func localizeFiles(in staging: RestoreStaging) throws {
        let paths = try StoragePaths(root: staging.path)
        let local = StoreConfiguration.Files().backend
        if var configuration = try StoreConfiguration.read(from: paths),
            configuration.files.backend != local || configuration.files.url != nil
                || configuration.files.urlVariable != nil
        {
            configuration.files.backend = local
            configuration.files.url = nil
            configuration.files.urlVariable = nil
            try configuration.write(to: paths)
        }
        try recatalog(.files, in: staging, under: local)
    }
}
