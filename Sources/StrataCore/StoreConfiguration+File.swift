public import Foundation
import StrataSystem

// The file `<root>/strata.conf`: UTF-8 text, one setting a line.
//
//   # a comment (whole lines only: a value may hold '#')
//   version = 1                    first setting of the file, required
//   [records]                      a section: selector, defaults, secrets, records, files or catalog
//   backend = postgres             name = value; the value runs to the end of the line, trimmed
//
// Every setting has one meaning and a type (a name, a size such as 65536 or 64KiB, an OS such as iOS17); a
// setting the version does not define, a repeated one (except `allow-sensitive-key`), or a bad value is
// refused with the file and the line, and a newer version is refused before anything else is read.
extension StoreConfiguration {
    /// The largest configuration file read: far more than any real one.
    static let maximumFileSize = 64 << 10

    /// Reads the store's configuration file.
    /// - Returns: The configuration, or `nil` when the store has no file.
    /// - Throws: ``StorageError``: `.unsupportedVersion` for a newer format, `.corrupt` for anything malformed
    ///   (both with ``StorageError/path`` and ``StorageError/line``), or the I/O error reading it.
    public static func read(from paths: StoragePaths) throws -> StoreConfiguration? {
        let root = try paths.openRoot()
        guard
            let data = try AtomicFile.read(
                in: root, name: fileName, maximumSize: maximumFileSize, followGrowth: false)
        else { return nil }
        return try parse(data, path: root.path(of: fileName))
    }

    /// Writes the configuration as the store's file, atomically and durably (mode 0600, 0640 in a group-shared root).
    /// - Throws: ``StorageError`` `.invalidArgument` for a value the file cannot hold (a line break, a name with
    ///   spaces), or the I/O error.
    public func write(to paths: StoragePaths) throws {
        let text = try rendered()
        let root = try paths.openRoot()
        try AtomicFile.write(Data(text.utf8), in: root, name: Self.fileName, permissions: paths.filePermissions)
    }

    /// Reads a configuration from the file's content.
    /// - Parameters:
    ///   - data: The file's bytes (UTF-8 text).
    ///   - path: The file, for errors.
    /// - Throws: As ``read(from:)``.
    public static func parse(_ data: Data, path: String? = nil) throws -> StoreConfiguration {
        var parser = StoreConfigurationParser(path: path)
        guard let text = String(validating: data, as: UTF8.self) else {
            throw parser.failure(.corrupt, "the file is not UTF-8 text", line: nil)
        }
        return try parser.parse(text)
    }

    /// The file's text.
    /// - Throws: ``StorageError`` `.invalidArgument` for a value the file cannot hold.
    public func rendered() throws -> String {
        var lines = [
            "# Strata store configuration (see Documentation/Storage.md). Explicit arguments to Storage(root:) win.",
            "version = \(Self.currentVersion)", "",
            "[selector]",
            "small-structured-limit = \(selector.smallStructuredLimit)",
            "secret-size-limit = \(selector.secretSizeLimit)",
        ]
        if let os = selector.context.minimumOS { lines.append("minimum-os = \(os)") }
        lines += [
            "", "[defaults]", "backend = \(try Self.checked(defaults.backend, "defaults.backend"))",
            "suite = \(try Self.checked(defaults.suite, "defaults.suite"))",
            "value-limit = \(selector.defaults.valueLimit)", "suite-budget = \(selector.defaults.suiteBudget)",
        ]
        for key in defaults.allowedSensitiveKeys {
            lines.append("allow-sensitive-key = \(try Self.checked(key, "defaults.allow-sensitive-key"))")
        }
        lines += [
            "", "[secrets]", "backend = \(try Self.checked(secrets.backend, "secrets.backend"))",
            "keyring = \(try Self.checked(secrets.keyring, "secrets.keyring"))",
            "", "[records]", "backend = \(try Self.checked(records.backend, "records.backend"))",
            "store = \(try Self.checked(records.store, "records.store"))",
        ]
        if let url = records.url { lines.append("url = \(try Self.checked(url, "records.url"))") }
        if let variable = records.urlVariable {
            lines.append("url-variable = \(try Self.checked(variable, "records.url-variable"))")
        }
        lines += ["", "[files]", "backend = \(try Self.checked(files.backend, "files.backend"))"]
        let optional = [
            ("url", files.url), ("url-variable", files.urlVariable), ("endpoint", files.endpoint),
            ("region", files.region),
        ]
        for case let (name, value?) in optional {
            lines.append("\(name) = \(try Self.checked(value, "files.\(name)"))")
        }
        if case .secrets(let id) = files.credentials {
            lines += ["credentials = secrets", "access-key-id = \(try Self.checked(id, "files.access-key-id"))"]
        }
        if catalog.isShared { lines += ["", "[catalog]", "shared = true"] }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `value` when one line of the file can hold it exactly: not empty, no line break or control character, no
    /// space at either end.
    static func checked(_ value: String, _ setting: String) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty, trimmed == value,
            !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw StorageError(
                .invalidArgument,
                "the value of \(setting) cannot be written in the configuration file: it is empty, has a control "
                    + "character or a line break, or starts or ends with a space",
                key: value)
        }
        return value
    }
}
