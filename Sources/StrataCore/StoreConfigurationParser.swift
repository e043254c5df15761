import Foundation

/// Reads the lines of `strata.conf` into a ``StoreConfiguration`` (the format is described in
/// `StoreConfiguration+File.swift` and `Documentation/Storage.md`).
struct StoreConfigurationParser {
    let path: String?
    var configuration = StoreConfiguration()
    var section: String?
    var seen: Set<String> = []
    /// `[files] credentials = secrets` and `access-key-id`, combined once the section is read.
    var credentialsFromSecrets = false
    var accessKeyID: String?

    init(path: String?) {
        self.path = path
        configuration.path = path
    }

    mutating func parse(_ text: String) throws -> StoreConfiguration {
        var sawVersion = false
        // Split on the scalar: `\r\n` is one `Character`, which a split on the `Character` `\n` never finds.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = String(raw).trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard sawVersion else {
                    throw failure(.corrupt, "the first setting must be `version = N`", line: number)
                }
                guard line.hasSuffix("]") else {
                    throw failure(.corrupt, "a section is written `[name]`", line: number)
                }
                let name = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                guard ["selector", "defaults", "secrets", "records", "files", "catalog"].contains(name) else {
                    throw failure(
                        .corrupt,
                        "unknown section [\(name)]; the sections are selector, defaults, secrets, records, files, "
                            + "catalog", line: number)
                }
                section = name
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw failure(.corrupt, "a setting is written `name = value`", line: number)
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw failure(.corrupt, "a setting is written `name = value`", line: number) }
            // What the file can hold is what it can write back (`rendered()`): a value is one line of text.
            guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw failure(.corrupt, "the value of `\(name)` holds a control character", line: number)
            }
            if !sawVersion {
                guard section == nil, name == "version" else {
                    throw failure(.corrupt, "the first setting must be `version = N`", line: number)
                }
                guard let version = Int(value), version >= 1 else {
                    throw failure(.corrupt, "the version must be a whole number from 1", line: number)
                }
                guard version <= StoreConfiguration.currentVersion else {
                    var error = failure(
                        .unsupportedVersion,
                        "the store configuration has version \(version); this Strata reads up to version "
                            + "\(StoreConfiguration.currentVersion)", line: number)
                    error.recovery = "Open the store with the newer Strata that wrote it"
                    throw error
                }
                sawVersion = true
                continue
            }
            guard let section else {
                throw failure(
                    .corrupt, "the setting `\(name)` must be inside a section such as [records]", line: number)
            }
            let setting = section + "." + name
            guard name == "allow-sensitive-key" || seen.insert(setting).inserted else {
                throw failure(.corrupt, "`\(name)` is set twice in [\(section)]", line: number)
            }
            guard !value.isEmpty else { throw failure(.corrupt, "`\(name)` has no value", line: number) }
            configuration.lines[setting] = number
            try apply(setting, value, name: name, line: number)
        }
        guard sawVersion else { throw failure(.corrupt, "the file has no `version = N` setting", line: nil) }
        try applyFilesCredentials()
        return configuration
    }

    /// Makes `[files] credentials` and `access-key-id` one ``FilesCredentials``: the keyring holds the secret key
    /// of the access key ID the file names.
    mutating func applyFilesCredentials() throws {
        switch (credentialsFromSecrets, accessKeyID) {
        case (true, let id?): configuration.files.credentials = .secrets(accessKeyID: id)
        case (true, nil):
            var error = failure(
                .corrupt, "`credentials = secrets` needs `access-key-id`: the keyring item's account",
                line: configuration.lines["files.credentials"])
            error.recovery =
                "Add `access-key-id = <your access key ID>` to [files]; its secret key is the keyring "
                + "item '\(FilesCredentials.secretsService)' of that account"
            throw error
        case (false, _?):
            throw failure(
                .corrupt, "`access-key-id` is read only with `credentials = secrets`",
                line: configuration.lines["files.access-key-id"])
        case (false, nil): break
        }
    }

    /// Sets `setting` (`section.name`) to `value`.
    mutating func apply(_ setting: String, _ value: String, name: String, line: Int) throws {
        switch setting {
        case "selector.small-structured-limit": configuration.selector.smallStructuredLimit = try size(value, line)
        case "selector.secret-size-limit": configuration.selector.secretSizeLimit = try size(value, line)
        case "selector.minimum-os":
            guard let version = PlatformVersion(parsing: value) else {
                throw failure(.corrupt, "cannot read '\(value)' as an OS; write it like iOS17 or macOS14", line: line)
            }
            configuration.selector.context.minimumOS = version
        case "defaults.backend": configuration.defaults.backend = value
        case "defaults.suite": configuration.defaults.suite = try plainName(value, of: "suite", line)
        case "defaults.value-limit": configuration.selector.defaults.valueLimit = try size(value, line)
        case "defaults.suite-budget": configuration.selector.defaults.suiteBudget = try size(value, line)
        case "defaults.allow-sensitive-key": configuration.defaults.allowedSensitiveKeys.append(value)
        case "secrets.backend": configuration.secrets.backend = value
        case "secrets.keyring": configuration.secrets.keyring = try plainName(value, of: "keyring", line)
        case "records.backend": configuration.records.backend = value
        case "records.store": configuration.records.store = try plainName(value, of: "record store", line)
        case "records.url": configuration.records.url = value
        case "records.url-variable": configuration.records.urlVariable = value
        case "files.backend": configuration.files.backend = value
        case "files.url": configuration.files.url = value
        case "files.url-variable": configuration.files.urlVariable = value
        case "files.endpoint": configuration.files.endpoint = value
        case "files.region": configuration.files.region = value
        case "files.credentials":
            guard value == "environment" || value == "secrets" else {
                throw failure(
                    .corrupt, "`credentials` is `environment` (the AWS_* variables) or `secrets` (the store's keyring)",
                    line: line)
            }
            credentialsFromSecrets = value == "secrets"
        case "files.access-key-id": accessKeyID = value
        case "catalog.shared":
            guard value == "true" || value == "false" else {
                throw failure(.corrupt, "`shared` is `true` (machines share the store) or `false`", line: line)
            }
            configuration.catalog.isShared = value == "true"
        default:
            throw failure(.corrupt, "unknown setting `\(name)` in [\(section ?? "")]", line: line)
        }
    }

    /// A suite, keyring or record store name: a plain name (``StoragePaths/validateName(_:of:)``).
    func plainName(_ text: String, of what: String, _ line: Int) throws -> String {
        do {
            try StoragePaths.validateName(text, of: what)
        } catch {
            throw failure(.corrupt, error.message, line: line)
        }
        return text
    }

    /// A size: bytes, or with a unit of 1024 (`64KiB`, `64K`, `1MiB`, `1M`).
    func size(_ text: String, _ line: Int) throws -> Int {
        guard let bytes = ByteCount(parsing: text)?.value, bytes > 0 else {
            throw failure(.corrupt, "cannot read '\(text)' as a size; write it like 65536, 64KiB or 1MiB", line: line)
        }
        return bytes
    }

    func failure(_ code: StorageError.Code, _ message: String, line: Int?) -> StorageError {
        var error = StorageError(
            code, message, path: path,
            recovery: "Correct the file (its format is in Documentation/Storage.md), or remove it to use the "
                + "built-in configuration")
        error.line = line
        error.operation = "read the store configuration"
        return error
    }
}
