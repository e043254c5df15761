import Foundation
import StrataTestSupport
import Testing

/// `records query --where feedId=daily` (the field is `feedID`) exited 0 with no output: a field no stored record has
/// is now an error naming the nearest field the records have, and a `--where` date may be ISO 8601 (it took
/// seconds since 2001 only).
@Suite("strata CLI: records query fields and dates")
struct RecordsQueryFieldTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()

    /// Four episodes a day apart from 2026-01-01T00:00:00Z (788,918,400 seconds since 2001), as a `Date` is stored;
    /// `note` is `null` in every record.
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-query-fields")
        let lines = (0..<4).map { index in
            "{\"id\":\"e\(index)\",\"feedID\":\"\(index % 2 == 0 ? "daily" : "weekly")\","
                + "\"published\":\(788_918_400 + index * 86_400),\"note\":null,"
                + "\"show\":{\"city\":\"\(index == 1 ? "Oslo" : "Lima")\"},\"tags\":[{\"name\":\"t\"}]}"
        }
        let file = directory.appending("episodes.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let imported = try strata(["records", "import", "episodes", file, "--root", root, "--create"])
        #expect(imported.status == 0, "\(imported.standardError)")
    }

    func ids(_ arguments: [String]) throws -> [String] {
        let result = try strata(["records", "query", "episodes", "--root", root] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return result.standardOutput.split(separator: "\n").compactMap { line in
            line.range(of: "\"id\":\"").map { String(line[$0.upperBound...].prefix(2)) }
        }
    }

    @Test func aFieldNoRecordHasIsAnErrorNamingTheNearest() throws {
        let cases: [([String], String, String)] = [
            (["--where", "feedId=daily"], "feedId", "feedID"),
            (["--where", "show.ctiy=Oslo"], "show.ctiy", "show.city"),
            (["--sort", "-publised"], "publised", "published"),
        ]
        for (arguments, field, nearest) in cases {
            let result = try strata(["records", "query", "episodes", "--root", root] + arguments)
            #expect(result.status == 1, "\(arguments): \(result.status) \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.contains("'\(field)'"), "\(result.standardError)")
            #expect(result.standardError.contains("did you mean '\(nearest)'"), "\(result.standardError)")
            #expect(result.standardError.contains("episodes"), "\(result.standardError)")
        }
        // Fields the records have, even only as null, and paths below arrays are not refused.
        #expect(try ids(["--where", "feedID=daily"]) == ["e0", "e2"])
        #expect(try ids(["--where", "show.city=Oslo"]) == ["e1"])
        #expect(try ids(["--where", "note=null", "--sort", "-published", "--limit", "1"]) == ["e3"])
        #expect(try ids(["--where", "tags.name=t"]).isEmpty)
    }

    @Test func aWhereDateMayBeISO8601() throws {
        #expect(try ids(["--where", "published>=2026-01-02T00:00:00Z"]) == ["e1", "e2", "e3"])
        #expect(try ids(["--where", "published<2026-01-02T01:00:01+01:00"]) == ["e0", "e1"])
        #expect(try ids(["--where", "published=2026-01-04T00:00:00.000Z"]) == ["e3"])
        // Seconds since 2001 still work, and a quoted date is text.
        #expect(try ids(["--where", "published<788918401"]) == ["e0"])
        #expect(try ids(["--where", "published=\"2026-01-02T00:00:00Z\""]).isEmpty)
    }
}
