public import Foundation
import StrataCore
import Synchronization

extension DefaultsStore {
    /// The suite's set values as a property list (registered defaults are not included).
    /// - Parameter format: Binary (`bplist00`) or XML. The default is XML, the format of `defaults export`.
    public func exportData(format: PropertyListFormat = .xml) -> Data {
        format.encode(state.withLock { $0.values })
    }

    /// Sets every top-level key of a property list (binary or XML), checking each as
    /// ``set(_:forKey:allowingSensitiveName:)`` does, all in one change.
    /// - Returns: How many keys were set.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` for unreadable data, a key twice, or a value over
    ///   ``PropertyListLimits/default`` (nothing is set), or the first key the rules refuse (nothing is set).
    @discardableResult
    public func importData(_ data: Data) throws -> Int {
        let value: PropertyListValue
        do {
            value = try PropertyListFormat.decode(data)
        } catch {
            throw StorageError(.corrupt, "the data is not a property list: \(error)", tier: .defaults)
        }
        guard case .dictionary(let dictionary) = value else {
            throw StorageError(.corrupt, "the property list is a \(value.typeName), not a dictionary", tier: .defaults)
        }
        for key in dictionary.keys { try checkKey(key.string, allowingSensitiveName: false) }
        try apply(dictionary.mapValues { Optional($0) })
        return dictionary.count
    }
}
