import Foundation
import Testing

@testable import StrataS3

/// The dates of S3 answers, read field by field, against Foundation's formatters (what the client used before) and
/// against malformed text.
@Suite struct S3TimestampTests {
    @Test func knownDatesParseToTheirInstants() {
        #expect(S3Timestamp.parseHTTP("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(S3Timestamp.parseHTTP("Fri, 24 May 2013 00:00:00 GMT") == Date(timeIntervalSince1970: 1_369_353_600))
        #expect(S3Timestamp.parseHTTP("Tue, 29 Feb 2028 23:59:59 GMT") == Date(timeIntervalSince1970: 1_835_481_599))
        #expect(S3Timestamp.parseISO8601("2013-05-24T00:00:00Z") == Date(timeIntervalSince1970: 1_369_353_600))
        #expect(S3Timestamp.parseISO8601("2013-05-24T00:00:00.500Z") == Date(timeIntervalSince1970: 1_369_353_600.5))
        #expect(S3Timestamp.parseISO8601("2013-05-24T02:00:00+02:00") == Date(timeIntervalSince1970: 1_369_353_600))
        #expect(S3Timestamp.parseISO8601("1969-12-31T23:59:59Z") == Date(timeIntervalSince1970: -1))
    }

    /// Every day from 1900 to 2200 at a varying time of day, printed by Foundation and read back by both parsers.
    @Test func agreesWithFoundationsFormattersOverThreeCenturies() {
        let http = DateFormatter()
        http.locale = Locale(identifier: "en_US_POSIX")
        http.timeZone = TimeZone(identifier: "GMT")
        http.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var seconds = -2_208_988_800  // 1900-01-01
        var mismatches: [String] = []
        while seconds < 7_258_118_400 {  // 2200-01-01
            let date = Date(timeIntervalSince1970: Double(seconds))
            let httpText = http.string(from: date)
            let isoText = iso.string(from: date.addingTimeInterval(0.25))
            if S3Timestamp.parseHTTP(httpText) != http.date(from: httpText) { mismatches.append(httpText) }
            let parsed = S3Timestamp.parseISO8601(isoText)?.timeIntervalSince1970 ?? .nan
            let expected = iso.date(from: isoText)?.timeIntervalSince1970 ?? .infinity
            if !(abs(parsed - expected) < 0.000_1) { mismatches.append(isoText) }
            seconds += 86_400 + 3_607
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func malformedDatesAreNil() {
        for text in [
            "", "Mon, 30 Nov 2026 22:34:02", "Mon, 30 Nov 2026 22:34:02 UTC", "Mon, 31 Nov 2026 22:34:02 GMT",
            "Mon, 30 Nom 2026 22:34:02 GMT", "Mon, 30 Nov 2026 24:00:00 GMT", "Mon, 3x Nov 2026 22:34:02 GMT",
            "Mon, 29 Feb 2027 22:34:02 GMT",
        ] {
            #expect(S3Timestamp.parseHTTP(text) == nil, "\(text)")
        }
        for text in [
            "", "2026-11-30", "2026-11-30T22:34:02", "2026-11-30T22:34:02.Z", "2026-13-30T22:34:02Z",
            "2026-11-30T22:34:02Zx", "2026-11-30 22:34:02Z", "2026-11-30T22:34:02+0200", "2026-11-3xT22:34:02Z",
            "2026-11-30T22:60:02Z",
        ] {
            #expect(S3Timestamp.parseISO8601(text) == nil, "\(text)")
        }
    }
}
