import Foundation
import Testing

/// The README's Quick start compiles as written: it is `Samples/QuickStart/main.swift`, which the package builds.
@Suite("README")
struct ReadmeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func quickStartIsTheSampleThePackageBuilds() throws {
        let readme = try String(contentsOf: Self.repository.appending(path: "README.md"), encoding: .utf8)
        let file = try String(
            contentsOf: Self.repository.appending(path: "Samples/QuickStart/main.swift"), encoding: .utf8)
        // The file's first two lines (the formatter's opt-out and what the file is) are not in the README.
        let sample = file.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)[2]
        let heading = try #require(readme.range(of: "## Quick start\n"), "the README has no Quick start")
        let section = try #require(
            readme.range(of: "```swift\n", range: heading.upperBound..<readme.endIndex), "the Quick start has no code")
        let end = try #require(readme.range(of: "```\n", range: section.upperBound..<readme.endIndex))
        #expect(readme[section.upperBound..<end.lowerBound] == sample)
    }
}
