import Strata

/// The fields a `records query` may name: the tool has no Swift type for a collection, so it checks names against
/// the records stored. A field that some record has (with a value, or `null`) is accepted, as is any path below
/// a value that is not an object in some record (an array, or a scalar a record gives a path under); so is any
/// field of an empty collection, where nothing can be learned and nothing matches.
enum StoredFields {
    /// Refuses a field no stored record has.
    /// - Throws: `StorageError` `.invalidArgument` naming the field and the nearest field the records have.
    static func check(_ query: Query, in collection: RecordCollection<AnyRecord>) throws {
        var unseen: [Field] = []
        for field in query.predicate.fields + query.sort.map(\.field) where !unseen.contains(field) {
            // Cheap first: a record with a value there (an index on the field serves it).
            if try collection.count(where: field.isNotNull) == 0 { unseen.append(field) }
        }
        guard !unseen.isEmpty else { return }
        var paths = Set<String>()
        var openPaths = Set<String>()
        let records = try collection.fetch()
        guard !records.isEmpty else { return }
        for record in records { collect(record.body, prefix: "", into: &paths, open: &openPaths) }
        for field in unseen where !paths.contains(field.path) {
            let components = field.components
            let isBelowOpen = (1..<max(1, components.count)).contains {
                openPaths.contains(components.prefix($0).joined(separator: "."))
            }
            if isBelowOpen { continue }
            let known = paths.sorted { ($0.utf8.count, $0) < ($1.utf8.count, $1) }
            let nearest = FieldDistance.nearest(to: field.path, among: known).map { " (did you mean '\($0)'?)" } ?? ""
            let listed = known.prefix(24).joined(separator: ", ") + (known.count > 24 ? ", …" : "")
            var error = StorageError(
                .invalidArgument,
                "no record of the collection has the field '\(field.path)'\(nearest); field names are "
                    + "case-sensitive",
                tier: .records, recovery: "Use one of the fields its records have: \(listed)")
            error.collection = collection.name
            error.operation = "query"
            throw error
        }
    }

    /// Every member path of `value`; paths whose value is not an object in some record go to `open` as well.
    private static func collect(
        _ value: JSONValue, prefix: String, into paths: inout Set<String>, open: inout Set<String>
    ) {
        guard case .object(let members) = value else {
            if !prefix.isEmpty { open.insert(prefix) }
            return
        }
        for (name, member) in members {
            let path = prefix.isEmpty ? name.string : prefix + "." + name.string
            paths.insert(path)
            collect(member, prefix: path, into: &paths, open: &open)
        }
    }
}
