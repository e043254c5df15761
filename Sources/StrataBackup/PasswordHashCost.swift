/// The cost of Argon2id for a passphrase: passes over memory, and memory in bytes.
///
/// A repository stores the cost in each passphrase slot, and refuses slots that ask for more than
/// ``maximum`` (a damaged or hostile slot must not make an open allocate gigabytes).
public struct PasswordHashCost: Sendable, Hashable, Codable {
    /// Passes (libsodium's `opslimit`).
    public var operations: UInt64
    /// Bytes of memory (libsodium's `memlimit`).
    public var memory: Int

    /// Creates a cost.
    public init(operations: UInt64, memory: Int) {
        self.operations = operations
        self.memory = memory
    }

    /// libsodium's interactive cost: 2 passes over 64 MiB (about a tenth of a second). The default.
    public static let interactive = PasswordHashCost(operations: 2, memory: 64 << 20)
    /// The smallest cost libsodium accepts. For tests only: it protects nothing.
    public static let minimumForTests = PasswordHashCost(operations: 1, memory: 8 << 10)
    /// The largest cost a slot may ask for: libsodium's moderate cost, 3 passes over 256 MiB.
    public static let maximum = PasswordHashCost(operations: 3, memory: 256 << 20)

    /// Whether this cost is within libsodium's minimum and ``maximum``.
    var isAccepted: Bool {
        operations >= Self.minimumForTests.operations && operations <= Self.maximum.operations
            && memory >= Self.minimumForTests.memory && memory <= Self.maximum.memory
    }
}
