import Foundation
import StrataPostgres
import StrataTestSupport
import Testing

/// Every ```swift block of the README and of `Documentation/*.md` compiles and runs as written (see
/// ``DocumentationSnippet`` for the markers that say otherwise), so the documentation cannot drift from the code.
///
/// The blocks are built as one throwaway package against this checkout (``DocumentationSnippetPackage``), by one
/// `swift build`; each runnable block then runs as its own program in a fresh temporary folder, which is also its
/// `HOME` and `TMPDIR`, so nothing reaches the user's files. A failure names the document, the block's line, and
/// the compiler's error or the exit status and what the program printed.
@Suite("Documentation snippets")
struct DocumentationSnippetTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The snippets, read once (an unreadable document fails ``everyBlockIsMarkedWell()``).
    static let snippets = (try? DocumentationSnippet.all(in: repository)) ?? []

    static let package = DocumentationSnippetPackage(repository: repository, snippets: snippets)

    /// The package's one build, shared by every snippet's test and started by the first that needs it. It runs
    /// on a thread of its own, so tests waiting for it do not hold the test runner's threads.
    static let build = Task { () throws -> DocumentationSnippetPackage.Build in
        try await offThePool {
            try package.generate()
            return try package.build()
        }
    }

    @Test func everyBlockIsMarkedWell() throws {
        let snippets = try DocumentationSnippet.all(in: Self.repository)
        #expect(snippets.count == Self.snippets.count)
        #expect(snippets.contains { $0.document == "README.md" && $0.mode == .packageManifest })
    }

    /// The markers: an unmarked block runs, `continues` joins the block before, `setup` and `defaults-keys` feed
    /// the next block, and a mistyped or misplaced marker is an error rather than a block that escapes the test.
    @Test func markersAreReadStrictly() throws {
        let fence = "```"
        let text = [
            "<!-- snippet: setup -->", "\(fence)sh", "touch key", fence, "", "\(fence)swift", "let a = 1", fence,
            "<!-- snippet: continues -->", "\(fence)swift", "print(a)", fence, "<!-- snippet: compile-only -->",
            "\(fence)swift", "let b = 2", fence, "\(fence)sh", "echo not a snippet", fence,
        ].joined(separator: "\n")
        let snippets = try DocumentationSnippet.extract(from: text, document: "Guide.md")
        #expect(snippets.map(\.line) == [6, 14])
        #expect(snippets.map(\.mode) == [.run, .compileOnly])
        #expect(snippets[0].parts.map(\.firstLine) == [7, 11])
        #expect(snippets[0].setup == ["touch key"])
        #expect(snippets[1].setup.isEmpty)
        for bad in [
            "<!-- snippet: compile-onyl -->\n\(fence)swift\nlet a = 1\n\(fence)",
            "<!-- snippet: setup -->\n\(fence)swift\nlet a = 1\n\(fence)",
            "<!-- snippet: continues -->\n\(fence)swift\nlet a = 1\n\(fence)",
            "<!-- snippet:compile-only\n\(fence)swift\nlet a = 1\n\(fence)",
            "\(fence)swift\nlet a = 1",
            "<!-- snippet: setup -->\n\(fence)sh\ntouch key\n\(fence)",
        ] {
            #expect(throws: DocumentationSnippet.ExtractionError.self, "\(bad)") {
                try DocumentationSnippet.extract(from: bad, document: "Guide.md")
            }
        }
    }

    @Test(arguments: snippets)
    func snippet(_ snippet: DocumentationSnippet) async throws {
        if snippet.mode == .packageManifest {
            try await checkManifest(snippet)
            return
        }
        let build = try await Self.build.value
        let errors = Self.package.errors(in: snippet, build: build)
        guard errors.isEmpty else {
            Issue.record(
                "\(snippet.document), the snippet at line \(snippet.line) does not compile:\n\(errors.joined(separator: "\n"))"
            )
            return
        }
        guard build.succeeded else {
            Issue.record(
                Comment(
                    rawValue: "\(snippet.document), the snippet at line \(snippet.line) was not built: the package "
                        + "failed to build (another snippet's error, or this):\n\(build.output.suffix(4000))"))
            return
        }
        switch snippet.mode {
        case .compileOnly, .packageManifest:
            return
        case .run:
            try await run(snippet, environment: [:])
        case .postgres:
            try await runOnPostgres(snippet)
        case .test:
            try await runTest(snippet)
        }
    }

    /// Runs a snippet's program in a fresh folder, after its setup commands, and records a failure naming the
    /// document, the line, the exit status and the output.
    private func run(_ snippet: DocumentationSnippet, environment: [String: String]) async throws {
        let folder = try TemporaryDirectory(prefix: "strata-snippet")
        defer { folder.remove() }
        let executable = Self.package.executable(snippet).path
        let result = try await offThePool {
            try ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"),
                ["-ec", Self.script(setup: snippet.setup, then: "exec \"$2\""), "sh", folder.path, executable],
                environment: Self.isolated(folder.path).merging(environment) { $1 }, timeout: 300)
        }
        Self.expectSuccess(result, snippet)
    }

    /// A `postgres` snippet runs with `STRATA_RECORDS_URL` naming a schema of its own on the test server, which
    /// is dropped afterwards. Without a server it is only compiled, unless `CI=true`.
    private func runOnPostgres(_ snippet: DocumentationSnippet) async throws {
        let server = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
        guard !server.isEmpty else {
            #expect(
                ProcessInfo.processInfo.environment["CI"] != "true",
                "\(snippet.document):\(snippet.line) needs STRATA_POSTGRES_URL (Scripts/test.sh starts a server)")
            return
        }
        let schema = "doc_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        defer {
            _ = try? PostgresRecordEngine.dropStore(PostgresConfiguration(connectionString: server, schema: schema))
        }
        try await run(snippet, environment: ["STRATA_RECORDS_URL": server + "?strata_schema=" + schema])
    }

    /// A `test` snippet runs with `swift test` in the generated package, selected by its test target.
    private func runTest(_ snippet: DocumentationSnippet) async throws {
        let folder = try TemporaryDirectory(prefix: "strata-snippet")
        defer { folder.remove() }
        let package = Self.package
        let command =
            "exec swift test --skip-build --package-path \"$2\" --scratch-path \"$3\" --filter \"$4\""
        let result = try await offThePool {
            try ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-ec", Self.script(setup: snippet.setup, then: command), "sh", folder.path, package.folder.path,
                    package.scratch.path, snippet.targetName,
                ],
                environment: ["TMPDIR": folder.path], timeout: 600)
        }
        Self.expectSuccess(result, snippet)
    }

    /// Checks a `Package.swift` snippet the way SwiftPM reads it.
    private func checkManifest(_ snippet: DocumentationSnippet) async throws {
        let folder = try TemporaryDirectory(prefix: "strata-manifest")
        defer { folder.remove() }
        let text = snippet.parts.map { $0.lines.joined(separator: "\n") }.joined(separator: "\n") + "\n"
        try text.write(toFile: folder.appending("Package.swift"), atomically: true, encoding: .utf8)
        let result = try await offThePool {
            try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["swift", "package", "dump-package", "--package-path", folder.path],
                timeout: 300)
        }
        Self.expectSuccess(result, snippet)
    }

    /// The shell script that enters the folder (`$1`), runs the setup commands and then `command`.
    private static func script(setup: [String], then command: String) -> String {
        (["cd \"$1\""] + setup + [command]).joined(separator: "\n")
    }

    /// The environment of a snippet's program: its folder is its home and its temporary folder.
    private static func isolated(_ folder: String) -> [String: String] {
        [
            "HOME": folder, "TMPDIR": folder, "XDG_DATA_HOME": folder + "/.local/share",
            "XDG_CONFIG_HOME": folder + "/.config", "XDG_CACHE_HOME": folder + "/.cache",
        ]
    }

    private static func expectSuccess(_ result: ChildProcess.Result, _ snippet: DocumentationSnippet) {
        guard result.status != 0 || result.wasSignalled else { return }
        let status =
            result.wasSignalled ? "was killed by signal \(result.status)" : "exited with status \(result.status)"
        Issue.record(
            """
            \(snippet.document), the snippet at line \(snippet.line) \(status)
            standard output:
            \(result.standardOutput.suffix(4000))
            standard error:
            \(result.standardError.suffix(4000))
            """)
    }
}

/// Runs blocking work (a build, a child process) on a thread of its own and waits for it without holding one of
/// Swift's concurrency threads.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
