package import StrataCore

/// The steps of a capture of a tier kept on PostgreSQL (``/StrataCore/TierCapture``): nothing ahead; at the instant,
/// a snapshot (``PostgresSnapshot``) — the one the capture's other tiers on the same server and schema hold, when
/// the capture is the whole store's — and after it, with the store's writers going on, `write` copies the tier from
/// that snapshot into the sink.
package final class PostgresSnapshotCapture: TierCapture {
    package typealias Write = (_ connection: PostgresConnection, _ sink: any CaptureSink) throws -> CaptureReport

    private let configuration: PostgresClientConfiguration
    private let tier: Tier?
    private let write: Write
    private var snapshot: PostgresSnapshot?
    /// Whether the snapshot is this step's alone, to end when it finishes (not the whole capture's instant's).
    private var ownsSnapshot = false

    /// The steps of a capture of `tier` (`nil`: the catalog) read with `configuration` and copied by `write`.
    package init(_ configuration: PostgresClientConfiguration, tier: Tier?, write: @escaping Write) {
        var configuration = configuration
        configuration.tier = nil  // the snapshot may be shared: each step names its own tier in its errors
        self.configuration = configuration
        self.tier = tier
        self.write = write
    }

    deinit {
        if ownsSnapshot { snapshot?.end() }
    }

    /// Takes a snapshot of this tier's own.
    package func pin(into sink: any CaptureSink) throws -> CaptureReport {
        snapshot = try attributed { try PostgresSnapshot(configuration) }
        ownsSnapshot = true
        return CaptureReport()
    }

    /// Takes the snapshot of `instant` for this server and schema, the first step to ask making it.
    package func pin(into sink: any CaptureSink, at instant: CaptureInstant) throws -> CaptureReport {
        snapshot = try attributed {
            try instant.resource(for: PostgresSnapshot.key(of: configuration)) {
                try PostgresSnapshot(configuration)
            }
        }
        return CaptureReport()
    }

    /// Copies the tier from the snapshot; a snapshot of its own is ended then.
    package func finish(into sink: any CaptureSink) throws -> CaptureReport {
        guard let snapshot else { return CaptureReport() }
        defer {
            if ownsSnapshot { snapshot.end() }
            self.snapshot = nil
            ownsSnapshot = false
        }
        return try attributed { try snapshot.read { try write($0, sink) } }
    }

    private func attributed<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            throw error.attributed(tier: tier, key: nil)
        }
    }
}
