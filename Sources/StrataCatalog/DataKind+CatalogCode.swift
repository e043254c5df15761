package import StrataCore

extension DataKind {
    /// The kind's code in the catalog log. Stable: part of the documented format.
    package var catalogCode: UInt8 {
        switch self {
        case .preference: 0
        case .credential: 1
        case .structured: 2
        case .relational: 3
        case .file: 4
        }
    }

    package init?(catalogCode: UInt8) {
        switch catalogCode {
        case 0: self = .preference
        case 1: self = .credential
        case 2: self = .structured
        case 3: self = .relational
        case 4: self = .file
        default: return nil
        }
    }
}
