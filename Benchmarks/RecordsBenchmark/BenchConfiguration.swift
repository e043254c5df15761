import StrataRecords

/// The connection settings both sides of the benchmark run with: the store's defaults, or what
/// `--map-bytes N` (SQLite's `mmap_size`) and `--cache-kib N` (its `cache_size`) give, so that another setting
/// can be measured without a rebuild. The raw C side gets the same pragmas (``RawSQLite/pragmas``).
enum BenchConfiguration {
    static let records: RecordsConfiguration = {
        let arguments = CommandLine.arguments
        func value(_ flag: String) -> Int? {
            arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }
        }
        var configuration = RecordsConfiguration()
        if let bytes = value("--map-bytes") { configuration.memoryMapBytes = bytes }
        if let kibibytes = value("--cache-kib") { configuration.pageCacheKibibytes = kibibytes }
        return configuration
    }()

    /// The settings as the first line of the output says them.
    static var summary: String {
        "mmap_size \(records.memoryMapBytes), cache_size \(records.pageCacheKibibytes) KiB"
    }
}
