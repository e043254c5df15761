import StrataBackup
import StrataCatalog

// The files of a capture are written into the staged store's files folder, whatever engine held them: an S3 engine's
// capture lays its objects out as the folder engine lays out its files, so that any capture restores into a local
// store; and its catalog is the file catalog, whichever engine kept it.
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

    /// Makes the staged store one machine's: a capture of a shared store (`[catalog] shared = true`) restores its
    /// catalog as the file catalog under the root, its suites as suite files and its keyrings as keyring folders, so
    /// the configuration stops declaring it shared (opened shared, it would look for the catalog on the server, or be
    /// refused for its local tiers) and names the backends of those files.
    static func localizeCatalog(in staging: RestoreStaging) throws {
        let paths = try StoragePaths(root: staging.path)
        guard var configuration = try StoreConfiguration.read(from: paths), configuration.catalog.isShared else {
            return
        }
        configuration.catalog.isShared = false
        // The shared suites were captured as suite files: the defaults tier is the folder's.
        configuration.defaults.backend = StoreConfiguration.Defaults().backend
        // The shared keyrings were captured as keyring folders (the same bytes): the secrets tier is the folder's.
        configuration.secrets.backend = StoreConfiguration.Secrets().backend
        try configuration.write(to: paths)
        try recatalog(.defaults, in: staging, under: configuration.defaults.backend)
        try recatalog(.secrets, in: staging, under: configuration.secrets.backend)
    }
}
