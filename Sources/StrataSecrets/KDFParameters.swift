import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Argon2id parameters, stored in the keyring so any later unlock derives the same key.
package struct KDFParameters: Sendable, Hashable {
    var salt: [UInt8]
    var operations: UInt64
    var memory: Int
}
