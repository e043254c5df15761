import Foundation

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
        let fd = open("/dev/tty", O_RDWR)
        guard fd >= 0 else {
            throw CommandFailure("no terminal to ask for the passphrase; use --passphrase-file or STRATA_PASSPHRASE")
        }
        defer { close(fd) }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var saved = termios()
        tcgetattr(fd, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(fd, TCSANOW, &silent)
        defer {
            tcsetattr(fd, TCSANOW, &saved)
            _ = write(fd, "\n", 1)
        }
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 0x0A, byte != 0x0D { line.append(byte) }
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
