import StrataCore

/// The file catalog's steps in a capture of the store: the log handed to the sink as it is at the instant (the
/// caller holds every key still), nothing after.
final class CatalogLogCapture: TierCapture {
    private let catalog: StorageCatalog

    init(_ catalog: StorageCatalog) {
        self.catalog = catalog
    }

    func pin(into sink: any CaptureSink) throws -> CaptureReport {
        var report = CaptureReport()
        report.count(try catalog.capture(into: sink))
        return report
    }

    func finish(into sink: any CaptureSink) throws -> CaptureReport { CaptureReport() }
}
