import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Talking to a person at a terminal: passphrases without echo, progress bars on stderr.
enum Terminal {
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Reads a line from the controlling terminal with echo off.
    static func readSecret(prompt: String) throws -> String {
        let fd: Int32
        do {
            fd = try Sys.open("/dev/tty", O_RDWR)
        } catch {
            throw CommandFailure("no terminal to ask for the passphrase; use --passphrase-file or STRATA_PASSPHRASE")
        }
        defer { Sys.close(fd) }
        try? Sys.writeAll(fd, Data(prompt.utf8))
        var saved = termios()
        tcgetattr(fd, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(fd, TCSANOW, &silent)
        defer {
            tcsetattr(fd, TCSANOW, &saved)
            try? Sys.writeAll(fd, Data("\n".utf8))
        }
        var line = [UInt8]()
        var byte = [UInt8](repeating: 0, count: 1)
        while (try? Sys.read(fd, into: &byte)) == 1, byte[0] != 0x0A, byte[0] != 0x0D { line.append(byte[0]) }
        return String(decoding: line, as: UTF8.self)
    }
}

/// Progress on stderr: a bar on a terminal, plain lines otherwise (at most one per 10%).
final class ProgressReporter: @unchecked Sendable {
    // Only called from the one thread doing the transfer.
    private let label: String
    private var lastTenth = -1

    init(_ label: String) { self.label = label }

    func update(done: Int, total: Int) {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        if Terminal.stderrIsTerminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data(String(format: "\r%@ [%@] %3.0f%%", label, bar, fraction * 100).utf8))
            if fraction >= 1 { FileHandle.standardError.write(Data("\n".utf8)) }
        } else {
            let tenth = Int(fraction * 10)
            guard tenth != lastTenth else { return }
            lastTenth = tenth
            FileHandle.standardError.write(Data("\(label): \(tenth * 10)% (\(done) of \(total) bytes)\n".utf8))
        }
    }
}
