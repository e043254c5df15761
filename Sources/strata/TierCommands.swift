import Foundation
import Strata

/// `strata defaults ...`
enum DefaultsCommands {
    static let suite = OptionSpec.value(
        "--suite", "NAME", "The suite. The default is the store configuration's, else 'standard'.")
    static let group = CommandGroup(
        name: "defaults", summary: "Read and change preference suites.",
        commands: [
            CommandSpec(
                name: "get", summary: "Print a key's value.", usage: "defaults get KEY --root DIR [--suite S] [--json]",
                options: [StoreAccess.rootOption, suite, JSONOutput.option]),
            CommandSpec(
                name: "set", summary: "Set a key (refuses credential-looking keys and oversize values).",
                usage: "defaults set KEY VALUE --root DIR [--suite S] [--type string|int|double|bool|date] [--create]",
                options: [
                    StoreAccess.rootOption, suite,
                    .value(
                        "--type", "TYPE",
                        "The value's type. The default is the type of the key's value (JSON for a dictionary, an "
                            + "array or JSON data), else string."),
                    StoreRoot.createOption,
                ],
                freeFormPositionals: [1]),
            CommandSpec(
                name: "delete", summary: "Remove a key.", usage: "defaults delete KEY --root DIR [--suite S]",
                options: [StoreAccess.rootOption, suite]),
            CommandSpec(
                name: "list", summary: "Print every key and value.",
                usage: "defaults list --root DIR [--suite S] [--json]",
                options: [StoreAccess.rootOption, suite, JSONOutput.option]),
            CommandSpec(
                name: "export", summary: "Print the suite as a plist (XML, or binary to a file).",
                usage: "defaults export --root DIR [--suite S] [--binary --output FILE]",
                options: [
                    StoreAccess.rootOption, suite, .flag("--binary", "Binary plist (bplist00)."),
                    .value("--output", "FILE", "Write to FILE."),
                ]),
            CommandSpec(
                name: "import", summary: "Set every key of a plist file (XML or binary).",
                usage: "defaults import FILE --root DIR [--suite S] [--create]",
                options: [StoreAccess.rootOption, suite, StoreRoot.createOption]),
        ],
        run: run)

    static func open(_ parsed: ParsedArguments, for use: StoreRoot.Use) throws -> DefaultsStore {
        try StoreAccess.defaults(parsed, for: use)
    }

    /// A value as `get` and `list` print it (see ``DefaultsValueText/show(_:)``).
    static func show(_ value: PropertyListValue) throws -> String {
        try DefaultsValueText.show(value)
    }

    /// The error for a key the suite has no value for.
    static func noValue(_ key: String) -> StorageError {
        StorageError(
            .notFound, "there is no value for this key", tier: .defaults, key: key,
            recovery: "'strata defaults list' prints the keys (check --suite)")
    }

    static func run(_ spec: CommandSpec, _ parsed: ParsedArguments) throws {
        switch spec.name {
        case "get":
            let key = try parsed.positionals(1, "KEY")[0]
            guard let value = try StoreAccess.defaultsSnapshot(parsed)[ExactString(key)] else {
                throw DefaultsCommands.noValue(key)
            }
            if parsed.has("--json") { return JSONOutput.print(JSONOutput.entry(key, value)) }
            print(try show(value))
        case "set":
            let arguments = try parsed.positionals(2, "KEY VALUE")
            // A value of the type --type names is read before the store is opened (or made, with --create).
            let typed = try parsed.value("--type").map {
                try DefaultsValueText.value(arguments[1], key: arguments[0], type: $0, existing: nil)
            }
            let store = try open(parsed, for: .write)
            let value =
                try typed
                ?? DefaultsValueText.value(
                    arguments[1], key: arguments[0], type: nil,
                    existing: store.object(forKey: arguments[0], includingRegistered: false))
            try store.set(value, forKey: arguments[0])
            CommandLineTool.printError(try DefaultsValueText.note(key: arguments[0], value: value))
        case "delete":
            let key = try parsed.positionals(1, "KEY")[0]
            try StoreAccess.reportChanges(parsed)
            guard try StoreAccess.defaultsSnapshot(parsed)[ExactString(key)] != nil,
                try open(parsed, for: .read).removeObject(forKey: key)
            else {
                throw DefaultsCommands.noValue(key)
            }
        case "list":
            _ = try parsed.positionals(0, "")
            let values = try StoreAccess.defaultsSnapshot(parsed)
            if parsed.has("--json") {
                let entries = values.keys.sorted().map { JSONOutput.entry($0.string, values[$0]!) }
                return JSONOutput.print(.object(["entries": .array(entries)]))
            }
            for key in values.keys.sorted(by: { $0.string < $1.string }) {
                print("\(key.string.escapedForDisplay) = \(try show(values[key]!).escapedForDisplay)")
            }
        case "export":
            _ = try parsed.positionals(0, "")
            let format: PropertyListFormat = parsed.has("--binary") ? .binary : .xml
            let data = format.encode(try StoreAccess.defaultsSnapshot(parsed))
            if let output = parsed.value("--output") {
                try AtomicFile.write(data, to: output)  // 0600: store content stays private
            } else {
                guard !parsed.has("--binary") else { throw UsageError("a binary export needs --output FILE") }
                FileHandle.standardOutput.write(data)
            }
        case "import":
            let file = try parsed.positionals(1, "FILE")[0]
            let data = try InputFile.contents(file, tier: .defaults)
            print("imported \(try open(parsed, for: .write).importData(data)) key(s)")
        default: break
        }
    }
}

/// `strata secrets ...`
enum SecretsCommands {
    static let common = SecretsAccess.options
    static let group = CommandGroup(
        name: "secrets", summary: "Keychain-style secrets: values print only when asked.",
        commands: [
            CommandSpec(
                name: "list", summary: "List items (attributes only).",
                usage: "secrets list --root DIR [--service S] [--json]",
                options: common + [.value("--service", "S", "Only this service."), JSONOutput.option]),
            CommandSpec(
                name: "get", summary: "Show an item; its value only with --show.",
                usage: "secrets get SERVICE ACCOUNT --root DIR [--show] [--json]",
                options: common + [.flag("--show", "Print the secret value itself."), JSONOutput.option]),
            CommandSpec(
                name: "set", summary: "Store a secret read from --value-file, or from standard input.",
                usage:
                    "secrets set SERVICE ACCOUNT --root DIR [--value-file FILE] [--label L] [--accessibility A] [--create]",
                options: common + [
                    StoreRoot.createOption,
                    .value("--value-file", "FILE", "Read the value from FILE (else standard input)."),
                    .value("--label", "L", "A label."),
                    .value("--accessibility", "A", "whenUnlocked (default), afterFirstUnlock, ...ThisDeviceOnly."),
                ]),
            CommandSpec(
                name: "delete", summary: "Delete an item.", usage: "secrets delete SERVICE ACCOUNT --root DIR",
                options: common),
            CommandSpec(
                name: "rotate",
                summary: "Replace the keyring's data key and re-seal every item (after a leak; passwd only rewraps).",
                usage: "secrets rotate --root DIR", options: common),
            CommandSpec(
                name: "passwd", summary: "Change the keyring's passphrase (rewraps one key).",
                usage: "secrets passwd --root DIR [--new-passphrase-file FILE]",
                options: common + [
                    .value(
                        "--new-passphrase-file", "FILE",
                        "Read the new passphrase from FILE, mode 0600 (else STRATA_NEW_PASSPHRASE, else the terminal, twice)."
                    )
                ]),
        ],
        run: run)

    /// The error for a service and account the keyring holds no item for.
    static func noItem(service: String, account: String) -> StorageError {
        StorageError(
            .notFound, "the service '\(service)' has no item for this account", tier: .secrets, key: account,
            recovery: "'strata secrets list' lists the items (check --keyring)")
    }

    static func run(_ spec: CommandSpec, _ parsed: ParsedArguments) throws {
        switch spec.name {
        case "list":
            _ = try parsed.positionals(0, "")
            let items = try SecretsAccess.openIfPresent(parsed)?.items(service: parsed.value("--service")) ?? []
            if parsed.has("--json") { return JSONOutput.print(.object(["items": .array(items.map(JSONOutput.item))])) }
            for item in items {
                print(
                    "\(item.service.escapedForDisplay)\t\(item.account.escapedForDisplay)\t\(item.accessibility.rawValue)\t"
                        + "\(item.valueSize) bytes\t\(item.label.escapedForDisplay)"
                )
            }
        case "get":
            let arguments = try parsed.positionals(2, "SERVICE ACCOUNT")
            guard let store = try SecretsAccess.openIfPresent(parsed),
                let item = try store.attributes(service: arguments[0], account: arguments[1]),
                let value = try store.get(service: arguments[0], account: arguments[1])
            else { throw SecretsCommands.noItem(service: arguments[0], account: arguments[1]) }
            if parsed.has("--json") {
                guard case .object(var members) = JSONOutput.item(item) else { return }
                if parsed.has("--show") { members["value"] = JSONOutput.bytes(value.data) }  // only when asked
                return JSONOutput.print(.object(members))
            }
            if parsed.has("--show") {
                FileHandle.standardOutput.write(value.data)
                if value.stringValue != nil { print("") }
            } else {
                print(
                    "\(item.service.escapedForDisplay)\t\(item.account.escapedForDisplay)\t\(item.accessibility.rawValue)\t"
                        + "\(value)\t(\(item.valueSize) bytes; --show prints it)"
                )
            }
        case "set":
            let arguments = try parsed.positionals(2, "SERVICE ACCOUNT")
            let value: Data
            if let file = parsed.value("--value-file") {
                value = try InputFile.contents(file, tier: .secrets, key: arguments[1])
            } else {
                value = FileHandle.standardInput.readDataToEndOfFile()
            }
            let accessibility =
                try parsed.value("--accessibility").map { name in
                    guard let found = SecretAccessibility(rawValue: name) else {
                        throw UsageError("unknown accessibility '\(name)'")
                    }
                    return found
                } ?? .whenUnlocked
            try SecretsAccess.open(parsed, for: .write).set(
                Secret(value), service: arguments[0], account: arguments[1], label: parsed.value("--label"),
                accessibility: accessibility)
        case "delete":
            let arguments = try parsed.positionals(2, "SERVICE ACCOUNT")
            try StoreAccess.reportChanges(parsed)
            guard try SecretsAccess.open(parsed, for: .read).delete(service: arguments[0], account: arguments[1]) else {
                throw SecretsCommands.noItem(service: arguments[0], account: arguments[1])
            }
        case "rotate":
            _ = try parsed.positionals(0, "")
            let (store, provider) = try SecretsAccess.unlocked(parsed, for: .read)
            let rotation = try store.rotate(with: provider)
            print("data key rotated; \(rotation.resealed) item(s) re-sealed")
            guard rotation.unreadable.isEmpty else {
                throw StorageError(
                    .corrupt,
                    "\(rotation.unreadable.count) item file(s) opened under neither key and were left as they were: "
                        + rotation.unreadable.joined(separator: ", "),
                    tier: .secrets, recovery: "Restore those items from a backup, or delete them")
            }
        case "passwd":
            _ = try parsed.positionals(0, "")
            let store = try SecretsAccess.open(parsed, for: .read)
            let new = try StoreAccess.passphrase(
                parsed, fileOption: "--new-passphrase-file", variable: "STRATA_NEW_PASSPHRASE",
                prompt: "New passphrase: ", confirming: true)
            try store.changeKey(to: .passphrase(new))
            print("passphrase changed; \(store.itemCount) item(s) untouched")
        default: break
        }
    }
}

/// `strata records ...`
enum RecordsCommands {
    static let store = OptionSpec.value("--store", "NAME", "The record store. The default is 'main'.")
    static let group = CommandGroup(
        name: "records",
        summary: "Look into record stores (SQLite, or PostgreSQL with --url): collections, queries, JSON Lines.",
        commands: [
            CommandSpec(
                name: "list", summary: "List collections and their counts.",
                usage: "records list --root DIR [--store NAME] [--json]",
                options: [StoreAccess.rootOption, StoreAccess.urlOption, store, JSONOutput.option]),
            CommandSpec(
                name: "get", summary: "Print one record as JSON.",
                usage: "records get COLLECTION ID --root DIR [--json]",
                options: [StoreAccess.rootOption, StoreAccess.urlOption, store, JSONOutput.option]),
            CommandSpec(
                name: "query", summary: "Print matching records as JSON Lines.",
                usage:
                    "records query COLLECTION --root DIR [--where 'age>=18']... [--sort age,-name] [--limit N] [--json]",
                options: [
                    StoreAccess.rootOption, StoreAccess.urlOption, store, JSONOutput.option,
                    .repeatable(
                        "--where", "COND",
                        "field OP value; OP is = (or ==) != < <= > >= ^= (prefix) ~= (contains); \"...\" for text. Repeatable."
                    ),
                    .value("--sort", "FIELDS", "Comma-separated fields; '-' for descending."),
                    .value("--limit", "N", "At most N records."),
                ]),
            CommandSpec(
                name: "export", summary: "Write a collection as JSON Lines.",
                usage: "records export COLLECTION --output FILE --root DIR",
                options: [
                    StoreAccess.rootOption, StoreAccess.urlOption, store,
                    .value("--output", "FILE", "The JSON Lines file."),
                ]),
            CommandSpec(
                name: "import", summary: "Import JSON Lines (all or nothing).",
                usage: "records import COLLECTION FILE --root DIR [--replace] [--create]",
                options: [
                    StoreAccess.rootOption, StoreAccess.urlOption, store,
                    .flag("--replace", "Replace records whose id exists."), StoreRoot.createOption,
                ]),
            CommandSpec(
                name: "verify",
                summary: "Check the store's integrity (SQLite's integrity_check; PostgreSQL's table shapes).",
                usage: "records verify --root DIR [--store NAME] [--json]",
                options: [StoreAccess.rootOption, StoreAccess.urlOption, store, JSONOutput.option]),
        ],
        run: run)

    /// The error for a collection the record store does not hold (or a store whose records tier is empty).
    static func noCollection(_ name: String) -> StorageError {
        StorageError(
            .notFound, "there is no collection '\(name)'", tier: .records, key: name,
            recovery: "'strata records list' names the collections")
    }

    /// Parses `age>=18`, `name==Ada`, `name^=Ada`, `tags~=vip`, `deleted=null` (see ``WhereClause``).
    static func condition(_ text: String) throws -> StrataRecords.Predicate {
        try WhereClause(text).predicate
    }

    static func run(_ spec: CommandSpec, _ parsed: ParsedArguments) throws {
        switch spec.name {
        case "list":
            _ = try parsed.positionals(0, "")
            let records = try StoreAccess.recordsIfPresent(parsed)
            let names = try records?.collectionNames() ?? []
            if parsed.has("--json") {
                let collections = try names.map { name -> JSONValue in
                    let count = try records?.collection(AnyRecord.self, named: name).count() ?? 0
                    return .object(["name": .string(name), "count": .integer(Int64(count))])
                }
                return JSONOutput.print(.object(["collections": .array(collections)]))
            }
            for name in names {
                print("\(name.escapedForDisplay)\t\(try records?.collection(AnyRecord.self, named: name).count() ?? 0)")
            }
        case "query":
            let name = try parsed.positionals(1, "COLLECTION")[0]
            let predicates = try parsed.allValues("--where").map { try condition($0) }
            let sort = (parsed.value("--sort") ?? "").split(separator: ",").map { part in
                part.hasPrefix("-")
                    ? SortKey.descending(Field(String(part.dropFirst()))) : SortKey.ascending(Field(String(part)))
            }
            let limit = try parsed.value("--limit").map { text in
                guard let number = Int(text), number >= 0 else { throw UsageError("--limit takes a whole number") }
                return number
            }
            let query = Query(predicates.isEmpty ? .all : .and(predicates), sort: sort, limit: limit)
            guard let records = try StoreAccess.recordsIfPresent(parsed), try records.collectionNames().contains(name)
            else { throw noCollection(name) }
            let found = try records.collection(AnyRecord.self, named: name).fetch(query)
            if parsed.has("--json") { return JSONOutput.print(.array(found.map(\.body))) }
            for record in found { print(record.body.description) }
        case "get":
            let arguments = try parsed.positionals(2, "COLLECTION ID")
            guard let records = try StoreAccess.recordsIfPresent(parsed),
                try records.collectionNames().contains(arguments[0]),
                let record = try records.collection(AnyRecord.self, named: arguments[0]).get(id: arguments[1])
            else {
                throw StorageError(
                    .notFound, "there is no record with this id", tier: .records, key: arguments[1],
                    recovery: "List the ids with 'strata records query \(arguments[0])'")
            }
            JSONOutput.print(record.body)
        case "export":
            let name = try parsed.positionals(1, "COLLECTION")[0]
            guard let output = parsed.value("--output") else { throw UsageError("'--output FILE' is required") }
            // A collection the store lacks is not-found, never made (the store is open only to read).
            guard let records = try StoreAccess.recordsIfPresent(parsed), try records.collectionNames().contains(name)
            else { throw noCollection(name) }
            let count = try records.collection(AnyRecord.self, named: name).exportJSONLines(to: output)
            print("exported \(count) record(s) to \(output)")
        case "import":
            let arguments = try parsed.positionals(2, "COLLECTION FILE")
            let records = try StoreAccess.records(parsed, for: .write)
            let count = try records.collection(AnyRecord.self, named: arguments[0]).importJSONLines(
                from: arguments[1], replacingExisting: parsed.has("--replace"))
            print("imported \(count) record(s)")
        case "verify":
            _ = try parsed.positionals(0, "")
            let problems = try StoreAccess.recordsIfPresent(parsed)?.verify() ?? []
            if parsed.has("--json") {
                JSONOutput.print(JSONOutput.verdict(problems.map { .string($0) }))
                if !problems.isEmpty { throw Verdict.failed(problems.count, tier: .records) }
                return
            }
            for problem in problems { print(problem.escapedForDisplay) }
            if !problems.isEmpty { throw Verdict.failed(problems.count, tier: .records) }
            print("ok")
        default: break
        }
    }
}

/// `strata files ...`
enum FilesCommands {
    static let group = CommandGroup(
        name: "files",
        summary: "The file store (a folder, or S3 with --url): list, copy in and out, archives, integrity.",
        commands: [
            CommandSpec(
                name: "ls", summary: "List files (under a prefix).",
                usage: "files ls [PREFIX] --root DIR|--url s3://B/P [--long] [--json]",
                options: [
                    StoreAccess.rootOption, StoreAccess.filesURLOption,
                    .flag("--long", "Show size, type and checksum."), JSONOutput.option,
                ]),
            CommandSpec(
                name: "stat", summary: "Show a file's size, type, checksum and dates.",
                usage: "files stat KEY --root DIR|--url s3://B/P [--json]",
                options: [StoreAccess.rootOption, StoreAccess.filesURLOption, JSONOutput.option]),
            CommandSpec(
                name: "put", summary: "Copy a file into the store.",
                usage: "files put KEY FILE --root DIR|--url s3://B/P [--create]",
                options: [StoreAccess.rootOption, StoreAccess.filesURLOption, StoreRoot.createOption]),
            CommandSpec(
                name: "get", summary: "Copy a file out (to --output, else standard output).",
                usage: "files get KEY --root DIR|--url s3://B/P [--output FILE]",
                options: [
                    StoreAccess.rootOption, StoreAccess.filesURLOption, .value("--output", "FILE", "Write to FILE."),
                ]),
            CommandSpec(
                name: "rm", summary: "Delete a file.", usage: "files rm KEY --root DIR|--url s3://B/P",
                options: [StoreAccess.rootOption, StoreAccess.filesURLOption]),
            CommandSpec(
                name: "export", summary: "Export files as .zip (many) or .gz (one), by the output's extension.",
                usage: "files export PREFIX... --output FILE.zip|FILE.gz --root DIR|--url s3://B/P",
                options: [
                    StoreAccess.rootOption, StoreAccess.filesURLOption, .value("--output", "FILE", "The archive."),
                ]),
            CommandSpec(
                name: "import", summary: "Import a .zip (or a .gz to --key), refusing hostile archives.",
                usage: "files import ARCHIVE --root DIR|--url s3://B/P [--into PREFIX] [--key KEY] [--create]",
                options: [
                    StoreAccess.rootOption, StoreAccess.filesURLOption,
                    .value("--into", "PREFIX", "Where zip entries go."),
                    .value("--key", "KEY", "Where a .gz goes."), StoreRoot.createOption,
                ]),
            CommandSpec(
                name: "verify", summary: "Recompute checksums.",
                usage: "files verify [PREFIX] --root DIR|--url s3://B/P [--json]",
                options: [StoreAccess.rootOption, StoreAccess.filesURLOption, JSONOutput.option]),
        ],
        run: run)

    static func run(_ spec: CommandSpec, _ parsed: ParsedArguments) throws {
        let use: StoreRoot.Use = spec.name == "put" || spec.name == "import" ? .write : .read
        // `rm` changes the store, which it opens only to read (a delete needs no --create).
        let changes = use == .write || spec.name == "rm"
        if spec.name == "rm", try StoreRoot.path(parsed) != nil { try StoreAccess.reportChanges(parsed) }
        guard let files = try StoreAccess.files(parsed, for: use, reportingChanges: changes) else {
            return try runWithoutFiles(spec, parsed)
        }
        switch spec.name {
        case "ls":
            let keys = try files.list(prefix: try parsed.optionalPositional("PREFIX") ?? "")
            if parsed.has("--json") {
                let listed = try keys.compactMap { try files.metadata($0).map(JSONOutput.file) }
                return JSONOutput.print(.object(["files": .array(listed)]))
            }
            for key in keys {
                if parsed.has("--long"), let meta = try files.metadata(key) {
                    print(
                        "\(meta.size)\t\(meta.contentType)\t\(meta.checksum.map { String(format: "%08x", $0) } ?? "-")\t\(key.escapedForDisplay)"
                    )
                } else {
                    print(key.escapedForDisplay)
                }
            }
        case "stat":
            let key = try parsed.positionals(1, "KEY")[0]
            guard let meta = try files.metadata(key) else {
                throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
            }
            if parsed.has("--json") { return JSONOutput.print(JSONOutput.file(meta)) }
            print("key:          \(meta.key.escapedForDisplay)")
            print("size:         \(meta.size) bytes")
            print("content type: \(meta.contentType)")
            print("checksum:     \(meta.checksum.map { String(format: "%08x", $0) } ?? "none recorded")")
            print("modified:     \(meta.modificationDate.formatted(.iso8601))")
        case "put":
            let arguments = try parsed.positionals(2, "KEY FILE")
            let handle = try InputFile.handle(arguments[1], tier: .files, key: arguments[0])
            try Interruption.trapping(spec.path) { try copyIn(handle, to: arguments[0], files: files) }
        case "get":
            let key = try parsed.positionals(1, "KEY")[0]
            if let output = parsed.value("--output") {
                removeStaleTemporaries(besides: output)
                try Interruption.trapping(spec.path) { try copyOut(key, to: output, files: files) }
            } else {
                try files.read(key) { FileHandle.standardOutput.write($0) }
            }
        case "rm":
            let key = try parsed.positionals(1, "KEY")[0]
            guard try files.delete(key) else {
                throw StorageError(
                    .notFound, "there is no file with this key", tier: .files, key: key,
                    recovery: "'strata files ls' lists the keys")
            }
        case "export":
            guard let output = parsed.value("--output") else { throw UsageError("'--output FILE' is required") }
            let progress = ProgressReporter("export")
            let options = ExportOptions(
                progress: { progress.update(done: $0.bytesDone, total: $0.bytesTotal, entry: $0.currentKey) },
                isCancelled: { Interruption.isRequested })
            removeStaleTemporaries(besides: output)
            if output.hasSuffix(".gz") {
                let key = try parsed.positionals(1, "KEY for a .gz")[0]
                try FilesCommands.checkGzipSource(key, in: files)
                let size = try Interruption.trapping(spec.path, progress) {
                    try files.exportGzip(key, to: output, options: options)
                }
                print("wrote \(output): \(size) bytes")
            } else if output.hasSuffix(".zip") {
                let result = try Interruption.trapping(spec.path, progress) {
                    try files.exportZip(
                        parsed.positionals.isEmpty ? [""] : parsed.positionals, to: output, options: options)
                }
                print("wrote \(output): \(result.entries) entries, \(result.bytes) bytes")
            } else {
                throw UsageError("the output must end in .zip or .gz")
            }
        case "import":
            let archive = try parsed.positionals(1, "ARCHIVE")[0]
            let progress = ProgressReporter("import")
            let options = ImportOptions(
                progress: { progress.update(done: $0.bytesDone, total: $0.bytesTotal, entry: $0.currentKey) },
                isCancelled: { Interruption.isRequested })
            if archive.hasSuffix(".gz") {
                guard let key = parsed.value("--key") else { throw UsageError("a .gz import needs --key KEY") }
                try Interruption.trapping(spec.path, progress) {
                    try files.importGzip(from: archive, to: key, options: options)
                }
                print("imported \(key)")
            } else {
                let keys = try Interruption.trapping(spec.path, progress) {
                    try files.importZip(from: archive, into: parsed.value("--into") ?? "", options: options)
                }
                print("imported \(keys.count) file(s)")
            }
        case "verify":
            let problems = try files.verify(prefix: try parsed.optionalPositional("PREFIX") ?? "")
            if parsed.has("--json") {
                JSONOutput.print(
                    JSONOutput.verdict(
                        problems.filter { $0.kind != .unrecorded }.map {
                            .object([
                                "key": .string($0.key), "kind": .string($0.kind.rawValue), "detail": .string($0.detail),
                            ])
                        }))
                if problems.contains(where: { $0.kind != .unrecorded }) {
                    throw Verdict.failed(problems.count, tier: .files)
                }
                return
            }
            for problem in problems { print("\(problem)".escapedForDisplay) }
            if problems.contains(where: { $0.kind != .unrecorded }) {
                throw Verdict.failed(problems.count, tier: .files)
            }
            print("ok")
        default: break
        }
    }
}
