extension Tier {
    /// The tier's code in the catalog log and in a backup snapshot's file list. Stable: part of both formats.
    package var catalogCode: UInt8 {
        switch self {
        case .defaults: 0
        case .secrets: 1
        case .records: 2
        case .files: 3
        }
    }

    package init?(catalogCode: UInt8) {
        switch catalogCode {
        case 0: self = .defaults
        case 1: self = .secrets
        case 2: self = .records
        case 3: self = .files
        default: return nil
        }
    }
}
