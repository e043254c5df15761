import StrataCore
import Synchronization

/// The process-wide table of open suites: every ``DefaultsStore`` on one suite file shares its state and its I/O
/// lock with the others, so a write through one is seen by all at once (another process sees it in the file).
///
/// A suite file is known by the identity of its folder (device and inode of `defaults/`, so two spellings of a
/// root, through a link or with `./`, meet) and its file name. Entries hold the state weakly: when the last store
/// on a suite goes away, its state goes too, and the next store reads the file afresh.
final class SuiteTable: Sendable {
    static let shared = SuiteTable()

    /// Which suite file: its folder's identity and its name, by exact scalars.
    struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var fileName: ExactString
    }

    /// What the stores of one suite share.
    struct Shared {
        var state: SharedMutex<DefaultsStore.State>
        var io: SharedMutex<Void>
    }

    private final class Entry: @unchecked Sendable {
        // `state` is weak so the table never keeps a suite alive; `io` is strong and tiny. Both are read and
        // written only under `SuiteTable.entries`' lock.
        weak var state: SharedMutex<DefaultsStore.State>?
        let io: SharedMutex<Void>
        init(state: SharedMutex<DefaultsStore.State>, io: SharedMutex<Void>) {
            self.state = state
            self.io = io
        }
    }

    private let entries = Mutex<[Identity: Entry]>([:])

    private init() {}

    /// The state and I/O lock of the suite, created empty when no open store has it.
    /// - Returns: The shared parts; new ones hold no identity yet, so the caller reads the file.
    func shared(for identity: Identity) -> Shared {
        entries.withLock { entries in
            if let entry = entries[identity], let state = entry.state {
                return Shared(state: state, io: entry.io)
            }
            entries = entries.filter { $0.value.state != nil }
            let shared = Shared(state: SharedMutex(DefaultsStore.State()), io: SharedMutex(()))
            entries[identity] = Entry(state: shared.state, io: shared.io)
            return shared
        }
    }
}
