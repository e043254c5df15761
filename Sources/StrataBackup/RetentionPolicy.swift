import Foundation

/// Which snapshots ``BackupRepository/forget(_:dryRun:)`` keeps; every other one is forgotten.
///
/// A snapshot is kept when any rule keeps it. `keepLast` keeps the newest N. `keepDaily` keeps, for each of the
/// N most recent days (UTC) that have snapshots, the newest snapshot of that day; `keepWeekly` the same per ISO
/// week, `keepMonthly` per month. A day, week or month without snapshots does not count. A snapshot dated after
/// now (written under a clock set ahead) is kept and takes no place in any rule: it would otherwise count as the
/// newest and push a real snapshot out.
public struct RetentionPolicy: Sendable, Hashable {
    /// The newest snapshots to keep.
    public var keepLast: Int
    /// Days to keep the newest snapshot of.
    public var keepDaily: Int
    /// ISO weeks to keep the newest snapshot of.
    public var keepWeekly: Int
    /// Months to keep the newest snapshot of.
    public var keepMonthly: Int

    /// Creates a policy; every count defaults to 0.
    public init(keepLast: Int = 0, keepDaily: Int = 0, keepWeekly: Int = 0, keepMonthly: Int = 0) {
        self.keepLast = keepLast
        self.keepDaily = keepDaily
        self.keepWeekly = keepWeekly
        self.keepMonthly = keepMonthly
    }

    /// Whether it keeps nothing at all (refused by `forget`, which would forget every snapshot).
    var keepsNothing: Bool { keepLast <= 0 && keepDaily <= 0 && keepWeekly <= 0 && keepMonthly <= 0 }

    /// The ids of the snapshots to keep.
    /// - Parameter now: What counts as now: later snapshots are kept outside the rules. The default is the clock's.
    func kept(_ snapshots: [SnapshotSummary], now: Date = Date()) -> Set<String> {
        let future = Set(snapshots.filter { $0.time > now }.map(\.id))
        let newestFirst = snapshots.filter { $0.time <= now }.sorted { ($0.time, $0.id) > ($1.time, $1.id) }
        var kept = future.union(newestFirst.prefix(max(0, keepLast)).map(\.id))
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let rules: [(Int, (Date) -> [Int])] = [
            (keepDaily, { calendar.dateComponents([.year, .month, .day], from: $0).values }),
            (keepWeekly, { calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: $0).values }),
            (keepMonthly, { calendar.dateComponents([.year, .month], from: $0).values }),
        ]
        for (count, bucket) in rules where count > 0 {
            var seen = Set<[Int]>()
            for snapshot in newestFirst {
                let key = bucket(snapshot.time)
                guard !seen.contains(key) else { continue }
                guard seen.count < count else { break }
                seen.insert(key)
                kept.insert(snapshot.id)
            }
        }
        return kept
    }
}

extension DateComponents {
    /// The set fields, in a fixed order.
    fileprivate var values: [Int] {
        [year, month, day, yearForWeekOfYear, weekOfYear].compactMap { $0 }
    }
}
