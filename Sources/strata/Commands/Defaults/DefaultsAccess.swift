import Foundation
import Strata

/// The options a `strata defaults` verb opens its suite with (`--root`, `--suite`), and how it opens it: with the
/// configuration's limits and allowed names, every set durable before the verb returns.
struct DefaultsAccess: Sendable {
    static let suiteOption = StoreAccess.nameOption(
        "--suite", of: "suite", "The suite. The default is the store configuration's, else 'standard'.")
    /// The options every defaults verb takes (write verbs add ``StoreRoot/createFlag``).
    static let options: [any OptionDeclaration] = [StoreRoot.option, suiteOption]

    var root: StoreRoot
    /// `--suite`, if given.
    var suite: String?

    init(parsing arguments: inout ParsedArguments, acceptsCreate: Bool = false) throws {
        root = try StoreRoot(parsing: &arguments, acceptsCreate: acceptsCreate)
        suite = try arguments.value(Self.suiteOption)
    }

    /// The suite the verb works on: `--suite`, else the configuration's.
    func open(for use: StoreRoot.Use) throws -> DefaultsStore {
        let (suite, paths, configuration) = try resolve(for: use)
        return try DefaultsStore(suite: suite, paths: paths, configuration: configuration)
    }

    /// The values of the suite a read verb looks at, read without opening the suite: nothing is created or changed.
    ///
    /// A suite named with `--suite` must exist: a mistyped name is an error listing the store's suites, not an empty
    /// suite (the configured suite may be absent — a store nothing was written to reads empty).
    func snapshot() throws -> [ExactString: PropertyListValue] {
        let (suite, paths, configuration) = try resolve(for: .read)
        let values = try DefaultsStore.snapshot(suite: suite, paths: paths, configuration: configuration)
        if values.isEmpty, self.suite != nil {
            let folder = paths.directoryPath(for: .defaults)
            guard FileManager.default.fileExists(atPath: folder + "/" + suite + ".plist") else {
                let suites = InspectCommand.names(in: folder, suffix: ".plist").map { String($0.dropLast(6)) }
                throw StorageError(
                    .notFound, "the store has no suite named '\(suite)'", tier: .defaults, key: suite, path: folder,
                    recovery: suites.isEmpty
                        ? "The store has no suites yet: 'strata defaults set KEY VALUE --suite NAME' makes one"
                        : "Its suites: \(suites.joined(separator: ", ")) (check --suite)")
            }
        }
        return values
    }

    /// The suite's name, the store, and the defaults configuration.
    private func resolve(for use: StoreRoot.Use) throws -> (String, StoragePaths, DefaultsConfiguration) {
        let paths = try StoreAccess.paths(root, for: use)
        let configuration = try StoreAccess.configuration(paths)
        if configuration.catalog.isShared {
            // The suite file under the root is this machine's own; the store's suites are on the server.
            var error = configuration.machineLocalStoreError(.defaults, key: nil)
            error.recovery =
                "The store's preferences are on the server: read and write them with strata get, put (--kind "
                + "preference), ls and rm"
            throw error
        }
        var defaults = Storage.defaultsConfiguration(configuration)
        defaults.durability = .durable
        defaults.watchesExternalChanges = false
        return (suite ?? configuration.defaults.suite, paths, defaults)
    }
}
