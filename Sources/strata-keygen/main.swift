// strata-keygen MANIFEST OUTPUT: generates typed DefaultsKey declarations from a keys manifest (JSON), for the
// DefaultsKeysPlugin build tool. A bad manifest fails the build with `file: error: entry: message`.
import Foundation
import StrataLint

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: strata-keygen MANIFEST OUTPUT\n".utf8))
    exit(2)
}
do {
    guard let data = FileManager.default.contents(atPath: arguments[1]) else {
        throw DefaultsKeysGenerator.Problem(file: arguments[1], entry: "(file)", message: "cannot read the manifest")
    }
    let source = try DefaultsKeysGenerator.generate(manifest: data, file: arguments[1])
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
