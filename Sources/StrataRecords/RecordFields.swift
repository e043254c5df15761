import Foundation
import StrataCore
import Synchronization

/// The field paths of a record type, learned once per type by decoding a probe (``FieldProbe``): what a query on a
/// typed collection may name.
///
/// What a probe cannot learn is left open, and any path below it is accepted: a dictionary, an array, `JSONValue`,
/// a type whose decoding reads the keys present (`allKeys`) or tries several shapes, and a type whose decoding
/// refuses the probe's placeholder values (the whole record then, when it is not optional and not `CaseIterable`).
struct RecordFields: Sendable, Hashable {
    /// What is known below a path.
    indirect enum Node: Sendable, Hashable {
        /// An object whose members are all known.
        case object([String: Node])
        /// A JSON scalar (text, number, boolean): it has no fields.
        case scalar
        /// Anything may be there.
        case open
    }

    /// The type's name, for errors.
    let typeName: String
    let root: Node

    /// Learns the fields of `type`, once per type.
    static func of<R: Decodable>(_ type: R.Type) -> RecordFields {
        let key = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[key] }) { return known }
        let learned = RecordFields(typeName: String(describing: type), root: FieldProbe.learn(type))
        cache.withLock { $0[key] = learned }
        return learned
    }

    private static let cache = Mutex<[ObjectIdentifier: RecordFields]>([:])

    /// Whether the path can name something in a record of this type.
    func contains(_ field: Field) -> Bool { scalarPrefix(of: field) == nil && isKnown(field) }

    private func isKnown(_ field: Field) -> Bool {
        var node = root
        for component in field.components {
            switch node {
            case .open: return true
            case .scalar: return false
            case .object(let members):
                guard let member = members[component] else { return false }
                node = member
            }
        }
        return true
    }

    /// The known scalar that `field` reaches below (`title` of `title.first`), if any.
    private func scalarPrefix(of field: Field) -> String? {
        var node = root
        var walked: [String] = []
        for component in field.components {
            switch node {
            case .open: return nil
            case .scalar: return walked.joined(separator: ".")
            case .object(let members):
                guard let member = members[component] else { return nil }
                node = member
                walked.append(component)
            }
        }
        return nil
    }

    /// Every known path, shortest first, then by name.
    var paths: [String] {
        var found: [String] = []
        func walk(_ node: Node, _ prefix: String) {
            guard case .object(let members) = node else { return }
            for (name, member) in members {
                let path = prefix.isEmpty ? name : prefix + "." + name
                found.append(path)
                walk(member, path)
            }
        }
        walk(root, "")
        return found.sorted { ($0.utf8.count, $0) < ($1.utf8.count, $1) }
    }

    /// Refuses a field the type does not have.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` naming the field, the type and the nearest field.
    func check(_ fields: [Field], collection: String, operation: String) throws {
        for field in fields where !contains(field) {
            throw Self.unknown(
                field.path, among: paths, nearest: scalarPrefix(of: field), typeName: typeName, collection: collection,
                operation: operation)
        }
    }

    /// The error for a field that is not among `paths`.
    package static func unknown(
        _ path: String, among paths: [String], nearest: String? = nil, typeName: String, collection: String,
        operation: String
    ) -> StorageError {
        let listed = paths.prefix(24).joined(separator: ", ") + (paths.count > 24 ? ", …" : "")
        let nearest = nearest ?? FieldDistance.nearest(to: path, among: paths)
        let hint = nearest.map { " (did you mean '\($0)'?)" } ?? ""
        return StorageError(
            .invalidArgument, "\(typeName) has no field '\(path)'\(hint)", tier: .records, collection: collection,
            operation: operation,
            recovery: paths.isEmpty
                ? "Query a field the records have"
                : "Use one of its fields: \(listed); a field stored but not in the type needs a migration or a "
                    + "property")
    }
}
