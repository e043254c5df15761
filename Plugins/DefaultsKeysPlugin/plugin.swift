// Build-tool plugin: a target holding `defaults-keys.json` gets typed `DefaultsKey` declarations generated at
// build time. A bad manifest (duplicate names, unknown types, a default of the wrong type, a credential-looking
// key) fails the build with a message naming the file and the entry.
import Foundation
import PackagePlugin

@main
struct DefaultsKeysPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "strata-keygen")
        return target.sourceFiles.filter { $0.url.lastPathComponent == "defaults-keys.json" }.map { manifest in
            let output = context.pluginWorkDirectoryURL.appendingPathComponent("DefaultsKeys.swift")
            return .buildCommand(
                displayName: "Generating DefaultsKeys.swift from \(manifest.url.lastPathComponent)",
                executable: tool.url, arguments: [manifest.url.path, output.path], inputFiles: [manifest.url],
                outputFiles: [output])
        }
    }
}
