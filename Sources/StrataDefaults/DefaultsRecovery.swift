import Foundation
import Synchronization

/// A suite file that could not be read and was moved aside.
public struct DefaultsRecovery: Sendable, Hashable, CustomStringConvertible {
    /// Where the unreadable file now is.
    public var movedTo: String
    /// Why it could not be read.
    public var reason: String

    public var description: String { "unreadable suite file moved to \(movedTo): \(reason)" }
}
