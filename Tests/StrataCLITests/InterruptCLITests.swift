import Foundation
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stopping `strata files` verbs (issue 16, item 7): Ctrl-C and SIGTERM during an export or a copy leave no
/// temporary and a terminal whose line is ended and cursor shown; what a `SIGKILL` left, the next run removes;
/// the progress bar on a terminal, plain lines elsewhere.
@Suite("strata CLI: interrupts and progress")
struct InterruptCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var outputFolder: String { directory.appending("out") }
    static let showCursor = "\u{1B}[?25h"
    static let hideCursor = "\u{1B}[?25l"

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-cli-interrupt")
        try FileManager.default.createDirectory(atPath: directory.appending("out"), withIntermediateDirectories: true)
    }

    /// A store holding `count` files of `megabytes` MiB of random bytes (slow to compress) under `big/`.
    func bigTree(count: Int, megabytes: Int, name: (Int) -> String = { "big/part-\($0).bin" }) throws {
        let files = try FileStore(root: root)
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        for index in 0..<count {
            try files.write(random.readData(ofLength: megabytes << 20), to: name(index))
        }
    }

    func strataOnTerminal(_ arguments: [String], _ steps: [PseudoTerminal.Step], columns: Int = 100) throws
        -> PseudoTerminal.Outcome
    {
        try PseudoTerminal.run(
            try TestExecutables.url(named: "strata"), arguments, steps: steps, columns: columns,
            environment: ["STRATA_ROOT": "", "TERM": "xterm"], in: directory)
    }

    func temporaries(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(AtomicFile.temporaryPrefix) }
    }

    /// The terminal was put back: the last cursor hide is followed by a show, then a line end.
    func expectTerminalRestored(_ output: String) {
        guard let hidden = output.range(of: Self.hideCursor, options: .backwards) else {
            Issue.record("no progress bar was drawn: \(output.debugDescription)")
            return
        }
        let after = output[hidden.upperBound...]
        #expect(
            after.contains(Self.showCursor + "\r\n"), "cursor and line restored: \(after.suffix(300).debugDescription)")
    }

    /// Ctrl-C during `files import` (it went unnoticed before: the import ran to its end, or a signal's default
    /// action killed it mid-commit): the import stops before its commit and the store is as it was.
    @Test(arguments: ["zip", "gz"])
    func ctrlCDuringAnImportLeavesTheStoreUnchanged(format: String) throws {
        try bigTree(count: format == "zip" ? 6 : 1, megabytes: format == "zip" ? 16 : 96)
        let archive = outputFolder + "/archive." + format
        let source = format == "zip" ? "big" : "big/part-0.bin"
        #expect(
            try ChildProcess.run(
                try TestExecutables.url(named: "strata"),
                ["files", "export", source, "--output", archive, "--root", root],
                environment: ["STRATA_ROOT": ""]
            ).status == 0)
        let files = try FileStore(root: root)
        let before = try files.list(prefix: "")
        let arguments =
            format == "zip"
            ? ["files", "import", archive, "--into", "copy", "--root", root]
            : ["files", "import", archive, "--key", "copy/part.bin", "--root", root]
        let run = try strataOnTerminal(arguments, [.type("\u{3}", after: "%", delay: 0)])
        #expect(run.signal == Int(SIGINT), "ended by the signal: \(run.output.suffix(400).debugDescription)")
        #expect(run.output.contains("strata files import: stopped by"), "\(run.output.suffix(300).debugDescription)")
        expectTerminalRestored(run.output)
        #expect(try files.list(prefix: "") == before)
        #expect(try files.verify(prefix: "").filter { $0.kind != .unrecorded }.isEmpty)
    }

    @Test(arguments: [
        (Int(SIGINT), "zip"), (Int(SIGINT), "gz"), (Int(SIGTERM), "zip"), (Int(SIGTERM), "gz"), (Int(SIGHUP), "zip"),
    ])
    func aSignalDuringAnExportRemovesItsTemporaryAndEndsTheLine(signal: Int, format: String) throws {
        try bigTree(count: format == "zip" ? 6 : 1, megabytes: format == "zip" ? 16 : 96)
        let output = outputFolder + "/archive." + format
        let source = format == "zip" ? "big" : "big/part-0.bin"
        // Ctrl-C is typed (the terminal sends SIGINT); SIGTERM is sent as a service manager would.
        let step: PseudoTerminal.Step =
            signal == Int(SIGINT)
            ? .type("\u{3}", after: "%", delay: 0) : .signal(Int32(signal), after: "%", delay: 0)
        let run = try strataOnTerminal(["files", "export", source, "--output", output, "--root", root], [step])
        #expect(run.signal == signal, "ended by the signal: \(run.output.suffix(400).debugDescription)")
        #expect(run.shellStatus == 128 + signal, "a shell sees \(128 + signal)")
        #expect(try temporaries(in: outputFolder).isEmpty, "no temporary left in the output folder")
        #expect(!FileManager.default.fileExists(atPath: output), "no partial archive")
        expectTerminalRestored(run.output)
        // The note names the command, as every other error line does.
        #expect(run.output.contains("strata files export: stopped by"), "\(run.output.suffix(300).debugDescription)")
    }

    @Test func ctrlCDuringAPutFromAPipeLeavesNothing() throws {
        let fifo = directory.appending("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A writer that sends a little and then stays open: the copy waits for more when Ctrl-C comes.
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(repeating: 7, count: 32 << 10))  // Within the pipe's buffer: never blocks.
            Thread.sleep(forTimeInterval: 8)
            try? handle.close()
        }
        writer.start()
        _ = try FileStore(root: root)
        let run = try strataOnTerminal(
            ["files", "put", "incoming/data.bin", fifo, "--root", root], [.type("\u{3}", after: "", delay: 2)])
        #expect(run.signal == Int(SIGINT), "\(run.output.debugDescription)")
        let everything = FileManager.default.enumerator(atPath: root + "/files")?.allObjects as? [String] ?? []
        let left = everything.filter { $0.contains(AtomicFile.temporaryPrefix) }
        #expect(left.isEmpty, "temporaries left: \(left)")
        #expect(try FileStore(root: root).exists("incoming/data.bin") == false)
    }

    @Test func aRunAfterASigkillRemovesTheTemporaryItLeft() throws {
        try bigTree(count: 4, megabytes: 16)
        let output = outputFolder + "/archive.zip"
        let killed = try strataOnTerminal(
            ["files", "export", "big", "--output", output, "--root", root], [.signal(SIGKILL, after: "%", delay: 0)])
        #expect(killed.signal == Int(SIGKILL))
        let left = try temporaries(in: outputFolder)
        try #require(left.count == 1, "a SIGKILL leaves its temporary: \(left)")
        // A temporary of a live writer (another process holding its lock) is never touched.
        let live = outputFolder + "/" + AtomicFile.temporaryPrefix + "999999999-live"
        #expect(FileManager.default.createFile(atPath: live, contents: Data("x".utf8)))
        let holder = open(live, O_RDONLY)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)

        let small = try FileStore(root: root)
        try small.write(Data("hello".utf8), to: "small.txt")
        let next = try ChildProcess.run(
            try TestExecutables.url(named: "strata"),
            ["files", "export", "small.txt", "--output", outputFolder + "/small.gz", "--root", root],
            environment: ["STRATA_ROOT": ""])
        #expect(next.status == 0, "\(next.standardError)")
        #expect(try temporaries(in: outputFolder) == [AtomicFile.temporaryPrefix + "999999999-live"])
    }

    @Test func theBarShowsBytesRateETAAndTheEntryWithinTheWidth() throws {
        let long = "deep/" + String(repeating: "a-very-long-folder-name/", count: 4) + "entry"
        try bigTree(count: 3, megabytes: 8) { "\(long)-\($0).bin" }
        let columns = 72
        let run = try strataOnTerminal(
            ["files", "export", "deep", "--output", outputFolder + "/deep.zip", "--root", root], [], columns: columns)
        #expect(run.status == 0, "\(run.output.debugDescription)")
        // Each redraw: carriage return, the line, erase to its end.
        let redraws = run.output.components(separatedBy: "\r").compactMap { part -> String? in
            guard let end = part.range(of: "\u{1B}[K") else { return nil }
            return String(part[..<end.lowerBound])
        }
        try #require(!redraws.isEmpty, "\(run.output.debugDescription)")
        for line in redraws {
            #expect(line.count < columns, "fits: \(line.debugDescription)")
        }
        let last = try #require(redraws.last)
        #expect(last.contains("100%") && last.contains("MiB/24.0 MiB"), "\(last)")
        #expect(redraws.contains { $0.contains("/s ETA ") }, "rate and time left: \(redraws)")
        #expect(redraws.contains { $0.contains("entry-") && $0.contains("…") }, "entry, shortened: \(redraws)")
        expectTerminalRestored(run.output)
    }

    @Test func withoutATerminalProgressIsPlainLines() throws {
        try bigTree(count: 2, megabytes: 2)
        let run = try ChildProcess.run(
            try TestExecutables.url(named: "strata"),
            ["files", "export", "big", "--output", outputFolder + "/plain.zip", "--root", root],
            environment: ["STRATA_ROOT": "", "TERM": "xterm"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardError.contains("\u{1B}") && !run.standardError.contains("\r"))
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("export: 100% (4.0 MiB of 4.0 MiB") }, "\(run.standardError)")
        #expect(lines.count <= 11, "at most one line per tenth")
    }
}
