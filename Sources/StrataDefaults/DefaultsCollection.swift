import StrataCore

/// An array, set or string-keyed dictionary as ``DefaultsCoding`` sees it: when its elements are stored natively but
/// are not ``PropertyListConvertible`` themselves — raw-representable values (``DefaultsRawValue``) or collections
/// of them — it is stored as a plist array (a set sorted by its elements' stored forms, in
/// ``PropertyListValue``'s total order) or dictionary of their stored
/// forms: `[Theme.dark, .light]` is `("dark", "light")`, as `[String]` is, so `DefaultsKey<[String]>`, `strata
/// defaults get` and any plist reader see it. Its old form, JSON data, still reads.
///
/// Checked on the metatype, like ``DefaultsOptional``. Optional elements are never native (a plist array holds no
/// `nil`): such a collection stays JSON.
protocol DefaultsCollection {
    /// The element type (a dictionary's value type).
    static var elementType: Any.Type { get }
    /// The elements, each in its stored form, as a `.array` or `.dictionary`.
    func encodedElements(key: String) throws -> PropertyListValue
    /// The collection decoded from `stored`, as an `Any` holding `Self`; `nil` when `stored` is not an array
    /// (dictionary) at all.
    static func decodeElements(from stored: PropertyListValue, key: String) throws(StorageError) -> Any?
}

extension DefaultsCollection {
    /// Whether this collection type is stored as a plist collection of its elements' stored forms.
    static var storesElementsNatively: Bool {
        !(elementType is any DefaultsOptional.Type) && DefaultsCoding.storesNatively(elementType)
    }

    /// One element's stored form; elements are never optional here, so there always is one.
    static func stored<Element: Codable>(_ element: Element, key: String) throws -> PropertyListValue {
        guard let stored = try DefaultsCoding.encode(element, key: key) else {
            throw StorageError(
                .invalidArgument, "a collection of \(Element.self) holds a nil, which a property list cannot",
                tier: .defaults, key: key)
        }
        return stored
    }
}

extension Array: DefaultsCollection where Element: Codable {
    static var elementType: Any.Type { Element.self }

    func encodedElements(key: String) throws -> PropertyListValue {
        .array(try map { try Self.stored($0, key: key) })
    }

    static func decodeElements(from stored: PropertyListValue, key: String) throws(StorageError) -> Any? {
        guard case .array(let items) = stored else { return nil }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for item in items { result.append(try DefaultsCoding.decode(Element.self, from: item, key: key)) }
        return result
    }
}

extension Set: DefaultsCollection where Element: Codable {
    static var elementType: Any.Type { Element.self }

    func encodedElements(key: String) throws -> PropertyListValue {
        // Sorted by the stored forms' total order, so one set is always written the same way.
        let items = try map { try Self.stored($0, key: key) }
        return .array(items.sorted { $0.precedes($1) })
    }

    static func decodeElements(from stored: PropertyListValue, key: String) throws(StorageError) -> Any? {
        guard let array = try [Element].decodeElements(from: stored, key: key) as? [Element] else { return nil }
        return Set(array)
    }
}

extension Dictionary: DefaultsCollection where Key == String, Value: Codable {
    static var elementType: Any.Type { Value.self }

    func encodedElements(key: String) throws -> PropertyListValue {
        var items: [ExactString: PropertyListValue] = [:]
        for (name, element) in self { items[ExactString(name)] = try Self.stored(element, key: key) }
        return .dictionary(items)
    }

    static func decodeElements(from stored: PropertyListValue, key: String) throws(StorageError) -> Any? {
        guard case .dictionary(let items) = stored else { return nil }
        var result: [String: Value] = [:]
        for (name, item) in items {
            let value = try DefaultsCoding.decode(Value.self, from: item, key: key)
            guard result.updateValue(value, forKey: name.string) == nil else {
                throw StorageError(
                    .typeMismatch, "the stored dictionary has two keys equal as Swift strings ('\(name.string)')",
                    tier: .defaults, key: key, recovery: "Read it as a PropertyListValue, whose keys are exact")
            }
        }
        return result
    }
}
