// Command plugin: `swift package storage-lint [--target T]... [--strict]` checks Swift sources against the
// storage-lint rules (Documentation/Plugins.md) and prints `file:line: rule: message`. With --strict, any finding
// fails.
import Foundation
import PackagePlugin

@main
struct StorageLintPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let strict = extractor.extractFlag(named: "strict") > 0
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let files = targets.compactMap { $0 as? SourceModuleTarget }.flatMap {
            $0.sourceFiles(withSuffix: "swift").map(\.url.path)
        }
        guard !files.isEmpty else { return print("storage-lint: no Swift sources in the selected targets") }
        let tool = try context.tool(named: "strata-lint")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = files + (strict ? ["--strict"] : [])
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("storage-lint found problems (exit \(process.terminationStatus))")
            throw StorageLintFailure()
        }
    }
}

struct StorageLintFailure: Error, CustomStringConvertible {
    var description: String { "storage-lint failed" }
}
