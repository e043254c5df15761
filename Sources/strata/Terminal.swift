import Foundation
import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Talking to a person at a terminal: passphrases without echo, progress bars on stderr.
enum Terminal {
    /// Whether standard error is a terminal that understands escape codes (not `TERM=dumb`).
    static var stderrIsTerminal: Bool {
        isatty(2) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// The width of the terminal on standard error: as it reports it, else `COLUMNS`, else 80.
    static var stderrColumns: Int {
        Sys.terminalColumns(.standardError) ?? ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) } ?? 80
    }

    /// Whether a passphrase may be asked for at the terminal: never while completing a command line
    /// (``KeyCompletion``), where a prompt would block the shell.
    static let mayAsk = Atomic(true)

    /// Reads a line from the controlling terminal with echo off. Echo comes back however the read ends: on
    /// return, on an error, and on Ctrl-C (or Ctrl-\, a hang-up, a kill), which then ends the program as usual.
    /// - Parameter source: Where else the verb takes the passphrase from, for the error when there is no terminal.
    static func readSecret(prompt: String, source: PassphraseSource) throws -> String {
        guard mayAsk.load(ordering: .relaxed), let fd = try? Sys.open("/dev/tty", .readWrite) else {
            throw StorageError(
                .locked, "there is no terminal to ask for \(source.what)", tier: source.tier,
                recovery: "Use \(source.alternatives)")
        }
        defer { Sys.close(fd) }
        try? Sys.writeAll(fd, Data(prompt.utf8))
        do { try Sys.echoOff(fd) } catch {
            throw StorageError.system(
                error.code, "cannot turn off echo on the terminal to read the passphrase", tier: source.tier)
        }
        defer {
            Sys.restoreEcho()
            try? Sys.writeAll(fd, Data("\n".utf8))
        }
        var line = [UInt8]()
        var byte = [UInt8](repeating: 0, count: 1)
        while (try? Sys.read(fd, into: &byte)) == 1, byte[0] != 0x0A, byte[0] != 0x0D { line.append(byte[0]) }
        return String(decoding: line, as: UTF8.self)
    }

    /// Asks for a new passphrase twice and returns it when both agree.
    /// - Throws: ``StorageError`` `invalid-argument` when they differ or it is empty (nothing is changed then).
    static func readNewSecret(prompt: String, source: PassphraseSource) throws -> String {
        let first = try readSecret(prompt: prompt, source: source)
        guard !first.isEmpty else {
            throw StorageError(
                .invalidArgument, "the passphrase is empty; nothing was changed", tier: source.tier,
                recovery: "Type a passphrase")
        }
        // Compared byte for byte: two canonically equivalent spellings are two passphrases to Argon2id.
        guard Array(try readSecret(prompt: "Repeat to confirm: ", source: source).utf8) == Array(first.utf8) else {
            throw StorageError(
                .invalidArgument, "the two passphrases differ; nothing was changed", tier: source.tier,
                recovery: "Type the same passphrase twice")
        }
        return first
    }
}
