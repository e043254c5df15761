import Foundation
public import Strata

/// What both sample programs share: argument reading and the steps of storing an export through the selector.
public enum Sample {
    /// `--name value` from the command line, or a default.
    public static func option(_ name: String, default value: String? = nil) -> String? {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
        return arguments[index + 1]
    }

    /// Prints a line and flushes it, so a parent process reading the output sees it at once.
    public static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Stops with a message on stderr and exit code 1.
    public static func fail(_ error: any Error) -> Never {
        FileHandle.standardError.write(
            Data("\(CommandLine.arguments[0].split(separator: "/").last ?? ""): error: \(error)\n".utf8))
        exit(1)
    }

    /// Asks the selector where a value belongs, says so, and checks it is the tier the sample expects.
    public static func route(_ storage: Storage, _ label: String, _ descriptor: DataDescriptor, expect tier: Tier)
        throws -> Selection
    {
        let selection = storage.select(descriptor)
        say("\(label) -> \(selection.tier.rawValue) (\(selection.appleEquivalent), rule \(selection.ruleID))")
        guard selection.tier == tier else {
            throw StorageError(
                .wrongTier, "the selector chose \(selection.tier) for \(label), not \(tier)", tier: selection.tier)
        }
        return selection
    }
}
