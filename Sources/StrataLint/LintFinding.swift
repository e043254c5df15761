import Foundation
import StrataDefaults

/// A broken storage-lint rule (``LintRule``), at a line of a Swift file.
public struct LintFinding: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var rule: LintRule
    public var message: String

    /// `file:line: rule: message`, the format editors and CI understand.
    public var description: String { "\(file):\(line): \(rule.rawValue): \(message)" }
}
