import StrataCore
import StrataSystem
import Synchronization

/// Where a backup's time goes, stage by stage, and what became of its chunks: filled in by a ``SnapshotWriter``
/// given one (``SnapshotWriter/stages``), printed by the benchmark (`strata-bench-backup --backup-stages`).
///
/// Each stage gets its wall time and the CPU time of the thread that ran it (`CLOCK_THREAD_CPUTIME_ID`), so the
/// figures hold on a shared machine too: there a stage's wall time also counts the time its thread waited for a
/// core. The stages of the writer's own thread (reading, cutting, handing chunks over, writing and closing packs,
/// the index and the snapshot) add up to at most its wall time; those of the workers (hashing, sampling,
/// compressing, sealing) add up over every worker, so their CPU divided by the wall time is how many cores the
/// workers kept busy. Timing costs four clock reads per stage of a chunk; without an instance the writer reads no
/// clock.
package final class BackupStages: Sendable {
    /// One stage of writing a snapshot.
    package enum Stage: Int, CaseIterable, Sendable {
        /// `pread` of the captured files (the writer's thread).
        case read
        /// The chunker finding the cuts (the writer's thread).
        case cut
        /// Copying each chunk out of the read buffer for its worker (the writer's thread).
        case copy
        /// Handing a chunk to a worker: waiting for a free one, and the packs written meanwhile (the writer's
        /// thread; includes ``packWrite`` and ``packClose`` of the chunks consumed while waiting).
        case handOver
        /// The keyed BLAKE2b of each chunk: its blob id (a worker).
        case hash
        /// The test of a sample of a chunk for compressibility (a worker).
        case sample
        /// Deflating the chunk (a worker).
        case compress
        /// Sealing the blob with XChaCha20-Poly1305 (a worker).
        case seal
        /// Appending sealed blobs to packs (the writer's thread).
        case packWrite
        /// Closing packs: the header, `fsync`, rename and the folder's `fsync` (the writer's thread).
        case packClose
        /// Writing the index file at commit (the writer's thread).
        case index
        /// Writing the snapshot file at commit (the writer's thread).
        case snapshot

        /// Its name in a report.
        package var name: String {
            switch self {
            case .read: "read"
            case .cut: "cut (gear hash)"
            case .copy: "copy chunk"
            case .handOver: "hand over (wait + packs)"
            case .hash: "hash (keyed BLAKE2b)"
            case .sample: "compressibility sample"
            case .compress: "deflate"
            case .seal: "seal (XChaCha20-Poly1305)"
            case .packWrite: "pack write"
            case .packClose: "pack close (fsync, rename)"
            case .index: "index write"
            case .snapshot: "snapshot write"
            }
        }

        /// Whether it runs on the workers (else on the writer's thread).
        package var isWorker: Bool { self == .hash || self == .sample || self == .compress || self == .seal }
    }

    /// What became of the chunks.
    package struct Chunks: Sendable {
        /// Chunks cut, and their bytes.
        package var count = 0
        package var bytes = 0
        /// Chunks the repository or this snapshot held already (hashed, nothing more).
        package var known = 0
        /// Chunks sealed by the workers (more than the blobs stored when two jobs sealed the same content).
        package var sealed = 0
        /// Chunks stored compressed, their bytes before and after.
        package var compressed = 0
        package var compressedBytes = 0
        package var compressedOutput = 0
        /// Chunks whose whole deflate saved too little, so they were stored as they were (compressed for nothing).
        package var compressedInVain = 0
        /// Chunks stored as they were without deflating them whole (the sample said they would not compress).
        package var skipped = 0
        package var skippedBytes = 0
        /// Packs closed.
        package var packs = 0
    }

    /// The time one stage took.
    package struct Spent: Sendable {
        /// Elapsed.
        package var wall: Duration = .zero
        /// The CPU time of the thread that ran it.
        package var cpu: Duration = .zero

        /// No time.
        package init() {}

        /// `wall` elapsed, `cpu` of it on the thread's clock.
        package init(wall: Duration, cpu: Duration) {
            self.wall = wall
            self.cpu = cpu
        }
    }

    private struct State {
        var spent = [Spent](repeating: Spent(), count: Stage.allCases.count)
        var chunks = Chunks()
    }

    private let state = Mutex(State())

    /// Creates empty totals.
    package init() {}

    /// The time spent in each stage so far.
    package var spent: [Stage: Spent] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: Stage.allCases.map { ($0, state.spent[$0.rawValue]) })
        }
    }

    /// What became of the chunks so far.
    package var chunks: Chunks { state.withLock { $0.chunks } }

    /// Adds `spent` to `stage`.
    package func add(_ spent: Spent, to stage: Stage) {
        state.withLock {
            $0.spent[stage.rawValue].wall += spent.wall
            $0.spent[stage.rawValue].cpu += spent.cpu
        }
    }

    /// Counts chunks.
    package func count(_ update: (inout Chunks) -> Void) {
        state.withLock { update(&$0.chunks) }
    }

    /// Runs `body`, adding its time to `stage` of `stages` when there are stages to fill.
    @inline(__always)
    static func time<Result, Failure: Error>(
        _ stages: BackupStages?, _ stage: Stage, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard let stages else { return try body() }
        let start = Mark()
        defer { stages.add(start.spent(), to: stage) }
        return try body()
    }

    /// A moment on both clocks: the wall's and the calling thread's CPU.
    struct Mark {
        let wall = ContinuousClock.now
        let cpu = Sys.threadCPUNanoseconds()

        /// The time from this mark to now, on the same thread.
        func spent() -> Spent {
            Spent(wall: ContinuousClock.now - wall, cpu: .nanoseconds(Sys.threadCPUNanoseconds() - cpu))
        }
    }
}
