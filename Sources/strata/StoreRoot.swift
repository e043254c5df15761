import Foundation
import Strata

/// Where a verb's store is, and whether the verb may make one there: the one rule every verb that takes a root
/// follows.
///
/// The root is `--root DIR` (also accepted before the verb: `strata --root DIR files ls`), else the verb's
/// positional root (`strata inspect DIR`), else `STRATA_ROOT`. A folder is a store when it holds any of
/// ``markers``: the configuration file `strata.conf`, the catalog, or a tier folder. Read verbs refuse a path that
/// is missing or not a store, and never create anything; write verbs refuse it too unless given `--create`.
struct StoreRoot: Sendable {
    /// What a verb does to the store.
    enum Use {
        /// Reads: the root must be a store, and nothing is created in it.
        case read
        /// Writes: the root must be a store, unless `--create` makes one.
        case write
    }

    static let environmentVariable = "STRATA_ROOT"
    static let option = Option("--root", "DIR", "The store root (or set STRATA_ROOT).", completion: .path)
    static let createFlag = Flag(
        "--create", "Make a new store at the root when there is none (without it, a mistyped root is an error).")
    /// A command's positional root (`strata inspect ROOT`).
    static let positional = Argument(optional: "ROOT", "The store's root folder.", completion: .path)
    /// The options that may come before the verb, and apply to it (`strata --root DIR files ls`).
    static let globalOptions = [option.spec.name]

    /// The `--root` given, if any.
    var option: String?
    /// The command's positional root, if it takes one and it is given.
    var positional: String?
    /// Whether `--create` is given (only commands that write declare it).
    var creates = false

    init(option: String?, positional: String? = nil, creates: Bool = false) {
        self.option = option
        self.positional = positional
        self.creates = creates
    }

    /// Reads `--root`, and the command's positional root and `--create` when it declares them.
    /// - Parameters:
    ///   - positional: The command's positional root (``positional``), if it takes one.
    ///   - acceptsCreate: Whether the command declares `--create` (``createFlag``).
    /// - Throws: ``UsageError`` when `--root` and the positional name two different roots.
    init(parsing arguments: inout ParsedArguments, positional: Argument<String?>? = nil, acceptsCreate: Bool = false)
        throws
    {
        option = try arguments.value(Self.option)
        self.positional = try positional.flatMap { try arguments.value($0) }
        creates = acceptsCreate && arguments.isSet(Self.createFlag)
        _ = try path()
    }

    /// The names whose presence in a folder makes it a store: its configuration file, its catalog, a tier folder.
    static var markers: [String] {
        [StoreConfiguration.fileName, "catalog"] + Tier.allCases.map(\.directoryName)
    }

    /// The root the verb names: `--root`, else `positional` (the verb's own positional root, if it takes one),
    /// else `STRATA_ROOT`; `nil` when none is given.
    /// - Throws: ``UsageError`` when `--root` and the positional name two different roots.
    func path() throws -> String? {
        if let option {
            if let positional, positional != option {
                throw UsageError("the root is given twice, as '\(positional)' and as '--root \(option)'; give it once")
            }
            return option
        }
        if let positional { return positional }
        return ProcessInfo.processInfo.environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the folder at `root` is a store (holds one of ``markers``).
    static func isStore(_ root: String) -> Bool {
        markers.contains { FileManager.default.fileExists(atPath: root + "/" + $0) }
    }

    /// The store at the root the verb names, checked for `use`.
    /// - Throws: ``UsageError`` when no root is given; ``StorageError`` `.notFound` when the root does not exist
    ///   and `.notAStore` when it is not a store (both with the path and the fix), unless `use` is `.write` and
    ///   `--create` is given.
    func paths(for use: Use) throws -> StoragePaths {
        guard let root = try path() else {
            throw UsageError("'--root DIR' is required (or set \(Self.environmentVariable))")
        }
        let creates = use == .write && self.creates
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: root, isDirectory: &isFolder)
        if !creates, !exists || (isFolder.boolValue && !Self.isStore(root)) {
            let fix =
                use == .write
                ? "Check the path; to make a new store there, pass --create (or run 'strata init \(root)')"
                : "Check the path: a store holds \(Self.markers.joined(separator: ", ")) ('strata init' makes one)"
            throw StorageError(
                exists ? .notAStore : .notFound,
                exists ? "the folder is not a Strata store" : "there is no store at the root: the path does not exist",
                path: root, recovery: fix)
        }
        return try StoragePaths(root: root, create: creates)
    }

    /// Whether `argument` is one of ``globalOptions``, alone (`--root`) or with its value (`--root=DIR`).
    static func isGlobalOption(_ argument: String) -> Bool {
        globalOptions.contains { argument == $0 || argument.hasPrefix($0 + "=") }
    }

    /// `arguments` with the global options given before the verb moved after it (and after a group's sub-verb),
    /// where the verb's own parser reads them; an option the verb also gives itself is overridden by the verb's.
    static func movingGlobalOptions(_ arguments: [String], groups: [String]) -> [String] {
        var global: [String] = []
        var rest = arguments[...]
        while let first = rest.first {
            if globalOptions.contains(first), rest.count > 1 {
                global += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else if isGlobalOption(first), first.contains("=") {
                global.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        guard !global.isEmpty, let verb = rest.first else { return arguments }
        var position = rest.startIndex + 1
        if groups.contains(verb), rest.count > 1, !rest[position].hasPrefix("-") { position += 1 }
        return Array(rest[..<position]) + global + Array(rest[position...])
    }
}
