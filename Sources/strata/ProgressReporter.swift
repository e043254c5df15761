import Foundation
import StrataCore
import StrataSystem

/// Progress of a transfer on standard error.
///
/// On a terminal: one line redrawn in place (at most ten times a second) with a bar, the bytes done and in all,
/// the rate, the time left and the entry being processed (escaped of control characters and shortened so that
/// the line fits the terminal's width); the cursor is hidden meanwhile and shown again by ``finish()``.
/// Otherwise (a pipe, a file, `TERM=dumb`): plain lines without escape codes, at most one per tenth.
final class ProgressReporter: @unchecked Sendable {
    // Only called from the one thread doing the transfer.
    private let label: String
    private let isTerminal: Bool
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var lastTenth = -1
    private var isDrawn = false
    private static let hideCursor = "\u{1B}[?25l"
    private static let showCursor = "\u{1B}[?25h"

    init(_ label: String, isTerminal: Bool = Terminal.stderrIsTerminal) {
        self.label = label
        self.isTerminal = isTerminal
    }

    /// Reports that `done` of `total` bytes are processed, `entry` being the current one.
    func update(done: Int, total: Int, entry: String? = nil) {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let now = ContinuousClock.now
        let seconds = Self.seconds(started.duration(to: now))
        // Too early for a rate to mean anything, except at the end: a fast job still reports the rate it had.
        let rate = seconds > 0.05 || (fraction >= 1 && seconds > 0) ? Double(done) / seconds : nil
        if isTerminal {
            if let lastDraw, fraction < 1, Self.seconds(lastDraw.duration(to: now)) < 0.1 { return }
            lastDraw = now
            if !isDrawn {
                isDrawn = true
                // A second Ctrl-C ends the process at once: it shows the cursor and ends the line first.
                Sys.setInterruptRestore(Array((Self.showCursor + "\n").utf8))
                write(Self.hideCursor)
            }
            let line = Self.line(
                label: label, fraction: fraction, done: done, total: total, rate: rate, entry: entry,
                columns: Terminal.stderrColumns)
            write("\r" + line + "\u{1B}[K")
        } else {
            let tenth = Int(fraction * 10)
            guard tenth != lastTenth else { return }
            lastTenth = tenth
            var text = "\(label): \(tenth * 10)% (\(Self.bytes(done)) of \(Self.bytes(total))"
            if let rate { text += ", \(Self.bytes(Int(rate)))/s" }
            text += ")"
            if let entry { text += " " + entry.escapedForDisplay }
            write(text + "\n")
        }
    }

    /// Ends the progress line and shows the cursor again (on a terminal, if a line was drawn).
    func finish() {
        guard isTerminal, isDrawn else { return }
        isDrawn = false
        Sys.setInterruptRestore([])
        write(Self.showCursor + "\n")
    }

    /// The terminal line, `label [#####-----]  45% 12.3 MiB/27.0 MiB 5.1 MiB/s ETA 0:03 …/entry`, at most
    /// `columns - 1` characters (the last column stays free so that the terminal never wraps): the numbers come
    /// first, the entry gets up to a third of the width (its end kept), and the bar what is left (none if narrow).
    static func line(
        label: String, fraction: Double, done: Int, total: Int, rate: Double?, entry: String?, columns: Int
    ) -> String {
        var stats = String(format: "%3.0f%%", fraction * 100) + " \(bytes(done))/\(bytes(total))"
        if let rate, rate > 0 {
            stats += " \(bytes(Int(rate)))/s ETA \(duration(Double(max(0, total - done)) / rate))"
        }
        let name = entry?.escapedForDisplay ?? ""
        let available = columns - 1
        let wantedForName = name.isEmpty ? 0 : min(name.count, max(16, available / 3)) + 1
        let barWidth = min(30, available - label.count - stats.count - wantedForName - 4)
        var text = label
        if barWidth >= 5 {
            let filled = Int(fraction * Double(barWidth))
            text +=
                " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]"
        }
        text += " " + stats
        let room = available - text.count - 1
        if !name.isEmpty, room >= 4 { text += " " + shortened(name, to: room) }
        return String(text.prefix(max(0, available)))
    }

    /// `text` cut to `length` characters, keeping its end (the file name) behind an ellipsis.
    static func shortened(_ text: String, to length: Int) -> String {
        guard text.count > length else { return text }
        return "…" + String(text.suffix(length - 1))
    }

    /// A byte count with a binary unit: `512 B`, `12.3 KiB`, `4.0 GiB`.
    static func bytes(_ count: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A time as `m:ss` or `h:mm:ss`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 360_000 else { return "--:--" }
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Writes to standard error, ignoring failures: after a hang-up the terminal is gone, and the clean-up that
    /// follows must still run.
    private func write(_ text: String) {
        try? Sys.writeAll(.standardError, Data(text.utf8))
    }
}
