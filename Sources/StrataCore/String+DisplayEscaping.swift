extension String {
    /// The string made safe to show on a terminal or in a log line: every scalar that could steer the terminal or
    /// reorder the text around it is written as `\u{…}`; everything printable, non-ASCII letters included, is kept.
    ///
    /// Escaped: the control characters (C0, DEL and the C1 range U+0080–U+009F, which some terminals obey as
    /// escape sequences), the bidirectional formatting characters (U+202E RIGHT-TO-LEFT OVERRIDE and its kin,
    /// which make `txt.exe` show as `exe.txt`), and the line and paragraph separators. Newline, tab and NUL
    /// become `\n`, `\t` and `\0`. A backslash is doubled, so the escaped form reads back unambiguously.
    ///
    /// Strata passes every string that came from outside (a key, an archive entry name, a file name, a value
    /// shown by the CLI) through this before it reaches a message, so a hostile name such as `ESC [2J` cannot
    /// clear the user's screen.
    ///
    /// ```swift
    /// "report\u{1B}[2J.pdf".escapedForDisplay   // report\u{1b}[2J.pdf
    /// ```
    public var escapedForDisplay: String {
        guard unicodeScalars.contains(where: \.needsDisplayEscape) else { return self }
        var out = ""
        out.unicodeScalars.reserveCapacity(unicodeScalars.count + 8)
        for scalar in unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            default:
                if scalar.needsDisplayEscape {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}

extension String {
    /// The string as a message names it: escaped (``escapedForDisplay``) and, past `maximum` scalars, cut in the
    /// middle and marked with its length — `exports/aaaa…aaaa.pdf (60000 bytes)` — so that an error about a huge key
    /// stays one readable line. The default is 160.
    public func shortenedForDisplay(maximum: Int = 160) -> String {
        let scalars = unicodeScalars
        guard scalars.count > maximum else { return escapedForDisplay }
        let head = String(String.UnicodeScalarView(scalars.prefix(maximum * 2 / 3)))
        let tail = String(String.UnicodeScalarView(scalars.suffix(maximum / 3)))
        return head.escapedForDisplay + "…" + tail.escapedForDisplay + " (\(utf8.count) bytes)"
    }
}

extension Unicode.Scalar {
    /// Whether `escapedForDisplay` writes this scalar escaped.
    var needsDisplayEscape: Bool {
        self == "\\" || isControlOrDirectionality
    }

    /// A control character (general category Cc: C0, DEL, C1), a bidirectional formatting character, or a line or
    /// paragraph separator: the scalars that store keys refuse and messages escape.
    package var isControlOrDirectionality: Bool {
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        if value < 0x200E { return value == 0x061C }
        return properties.isBidiControl || value == 0x2028 || value == 0x2029
    }
}
