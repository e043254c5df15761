import Foundation
import StrataDefaults

/// The child modes that read preference suites; `false` when `arguments` names none of them.
func runSharedSuiteMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "defaults-get":
        // defaults-get ROOT SUITE KEY: open the suite and say `value V` (the string, integer or bool) or `absent`.
        let store = try DefaultsStore(
            suite: arguments[2], root: arguments[1], configuration: DefaultsConfiguration(watchesExternalChanges: false)
        )
        switch store.object(forKey: arguments[3]) {
        case .string(let text)?: say("value \(text)")
        case .integer(let number)?: say("value \(number)")
        case .bool(let flag)?: say("value \(flag)")
        case let other?: say("value \(other.typeName)")
        case nil: say("absent")
        }
    default:
        return false
    }
    return true
}
