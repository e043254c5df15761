import Foundation

/// The two time formats of S3 answers: ISO 8601 in XML (`2026-11-30T22:34:02.980Z`) and the HTTP date of headers
/// (`Mon, 30 Nov 2026 22:34:02 GMT`, RFC 9110's IMF-fixdate).
///
/// Read field by field: both formats are fixed, and a `DateFormatter` built per answer (ICU loading its date
/// symbols) took more CPU than the rest of a small GET, signature included.
enum S3Timestamp {
    /// `2026-11-30T22:34:02Z`, with or without a fraction of a second, `Z` or an offset `+hh:mm`.
    static func parseISO8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"), let year = number(bytes[0..<4]), let month = number(bytes[5..<7]),
            let day = number(bytes[8..<10]), let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]),
            let second = number(bytes[17..<19])
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var (numerator, denominator) = (0, 1)
            let start = index
            while index < bytes.count, let digit = digit(bytes[index]) {
                if denominator < 1_000_000_000 { (numerator, denominator) = (numerator * 10 + digit, denominator * 10) }
                index += 1
            }
            guard index > start else { return nil }
            fraction = Double(numerator) / Double(denominator)
        }
        var offset = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                let hours = number(bytes[index + 1..<index + 3]), let minutes = number(bytes[index + 4..<index + 6]),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        guard let seconds = secondsSince1970(year, month, day, hour, minute, second) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// `Mon, 30 Nov 2026 22:34:02 GMT`.
    static func parseHTTP(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
            bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "),
            bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25...] == Array(" GMT".utf8)[...],
            let day = number(bytes[5..<7]), let year = number(bytes[12..<16]), let hour = number(bytes[17..<19]),
            let minute = number(bytes[20..<22]), let second = number(bytes[23..<25]),
            let month = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
            let seconds = secondsSince1970(year, month + 1, day, hour, minute, second)
        else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// The decimal number the bytes spell, digits only.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard let digit = digit(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// The seconds from 1970-01-01T00:00:00Z to a UTC date and time of the proleptic Gregorian calendar, or nil
    /// for fields out of range (a 61st second is taken as a leap second: the next minute's first).
    static func secondsSince1970(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int)
        -> Int?
    {
        let lengths = [
            31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
        ]
        guard (1...12).contains(month), (1...lengths[month - 1]).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        // Days from the civil date: years counted from March, so that February's extra day ends the year.
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days * 24 + hour) * 60 + minute) * 60 + second
    }
}
