public import Foundation
public import StrataCore

// The byte form of a property-list value: what `data(for:)` of a typed preference returns, and how a typed value
// is stored in a tier that holds bytes (secrets, records, files). Each type has one documented form, named by a
// content type, so that a value moved between tiers reads back as the same value:
//
//   string      its UTF-8 bytes                                          application/vnd.strata.string
//   integer     decimal digits, `-` when negative                         application/vnd.strata.integer
//   real        Swift's shortest text that reads back exactly (`0.1`,     application/vnd.strata.real
//               `1e-05`, `inf`, `nan`)
//   bool        `true` or `false`                                         application/vnd.strata.bool
//   date        ISO 8601 in UTC, with as many fractional digits as the    application/vnd.strata.date
//               value needs to read back exactly (`2001-01-01T00:00:00.25Z`);
//               outside the years 1 to 9999, the seconds since 2001 as a real
//   data        the bytes themselves                                      (none: raw bytes)
//   array,      an XML property list, as `plutil -convert xml1` writes    application/vnd.strata.array,
//   dictionary  it (dates in it to the second, as Apple's format has it)  application/vnd.strata.dictionary
extension PropertyListValue {
    /// What every content type of a byte form starts with.
    public static let byteFormContentTypePrefix = "application/vnd.strata."

    /// The content type that names this value's byte form, or `nil` for data (raw bytes).
    public var byteFormContentType: String? {
        if case .data = self { return nil }
        return Self.byteFormContentTypePrefix + typeName
    }

    /// The value's byte form (see the table at the top of this file).
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for an array or dictionary nested deeper than
    ///   ``PropertyListLimits/defaultMaximumDepth``, `.tooLarge` for one that expands beyond
    ///   ``PropertyListLimits/defaultMaximumExpandedSize``.
    public func byteForm() throws(StorageError) -> Data {
        switch self {
        case .string(let text): return Data(text.utf8)
        case .integer(let number): return Data(String(number).utf8)
        case .real(let number): return Data(number.description.utf8)
        case .bool(let flag): return Data((flag ? "true" : "false").utf8)
        case .date(let date): return Data(Self.dateText(date).utf8)
        case .data(let data): return data
        case .array, .dictionary:
            let footprint = footprint(upToNodes: PropertyListLimits.defaultMaximumExpandedSize)
            guard footprint.isComplete else {
                throw StorageError(
                    .tooLarge,
                    "the value expands beyond \(PropertyListLimits.defaultMaximumExpandedSize) bytes as a property list",
                    recovery: "Store it as data or in the files tier")
            }
            guard footprint.height <= PropertyListLimits.defaultMaximumDepth else {
                throw StorageError(
                    .invalidArgument, "the value nests deeper than \(PropertyListLimits.defaultMaximumDepth) levels",
                    recovery: "Flatten the value")
            }
            return XMLPropertyList.encode(self)
        }
    }

    /// Reads a byte form back.
    /// - Parameters:
    ///   - byteForm: The bytes.
    ///   - contentType: What ``byteFormContentType`` said when they were written. `nil`, or any type that is not
    ///     one of ``byteFormContentTypePrefix``'s (`application/pdf`), means raw bytes: the value is `.data`.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when the bytes are not that type's form.
    public init(byteForm: Data, contentType: String?) throws(StorageError) {
        guard let contentType, contentType.hasPrefix(Self.byteFormContentTypePrefix) else {
            self = .data(byteForm)
            return
        }
        let type = String(contentType.dropFirst(Self.byteFormContentTypePrefix.count))
        if type == "array" || type == "dictionary" {
            do {
                self = try XMLPropertyList.decode(byteForm)
            } catch {
                throw Self.unreadable(type, reason: error.description)
            }
            guard typeName == type else { throw Self.unreadable(type, reason: "it holds a \(typeName)") }
            return
        }
        guard let text = String(validating: byteForm, as: UTF8.self) else {
            throw Self.unreadable(type, reason: "the bytes are not UTF-8")
        }
        let value: PropertyListValue? =
            switch type {
            case "string": .string(text)
            case "integer": Int64(text).map { .integer($0) }
            case "real": Double(text).map { .real($0) }
            case "bool": ["true": true, "false": false][text].map { .bool($0) }
            case "date": Self.date(from: text).map { .date($0) }
            case "data": .data(byteForm)
            default: nil
            }
        guard let value else { throw Self.unreadable(type, reason: "'\(text.prefix(40))' is not one") }
        self = value
    }

    private static func unreadable(_ type: String, reason: String) -> StorageError {
        StorageError(
            .corrupt, "the stored bytes are not the byte form of a \(type): \(reason)",
            recovery: "Write the value again, or read it as Data")
    }

    /// ISO 8601 in UTC with exactly the fractional digits the date needs: the whole seconds since 2001 and the
    /// fraction (their difference, exact in binary floating point outside the second before 2001) are
    /// written separately, so reading adds them back to the very same `Double`. In the one second before 2001 a
    /// fraction smaller than about 1e-16 s is rounded.
    static func dateText(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite else { return seconds.description }
        let whole = seconds.rounded(.down)
        let text = Date(timeIntervalSinceReferenceDate: whole).formatted(.iso8601)
        // Years before 1 or after 9999 have no ISO 8601 form that readers agree on.
        guard text.first?.isNumber == true, text.utf8.count == 20, !text.hasPrefix("0000") else {
            return seconds.description
        }
        let fraction = seconds - whole
        guard fraction > 0 else { return text }
        // Shortest digits that read back exactly. Where Swift would switch to an exponent (below 1e-4), printf's
        // fixed notation, which glibc and Darwin print exactly: 1,074 digits hold any binary fraction whole.
        var digits = fraction.description
        if digits.contains("e") {
            digits = String(format: "%.1074f", fraction)
            while digits.hasSuffix("0") { digits.removeLast() }
        }
        return String(text.dropLast()) + digits.dropFirst() + "Z"
    }

    /// Reads ``dateText(_:)``'s form: an ISO 8601 UTC time with optional fractional seconds, or seconds since 2001.
    static func date(from text: String) -> Date? {
        if let seconds = Double(text) { return Date(timeIntervalSinceReferenceDate: seconds) }
        guard text.hasSuffix("Z") else { return nil }
        var wholeText = String(text.dropLast())
        var fraction = 0.0
        if let dot = wholeText.firstIndex(of: ".") {
            let digits = wholeText[wholeText.index(after: dot)...]
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                let parsed = Double("0." + digits)
            else { return nil }
            fraction = parsed
            wholeText = String(wholeText[..<dot])
        }
        guard let whole = try? Date.ISO8601FormatStyle().parse(wholeText + "Z") else { return nil }
        return Date(timeIntervalSinceReferenceDate: whole.timeIntervalSinceReferenceDate + fraction)
    }
}
