/// The records that test processes and their children write and read: one definition, so both sides always
/// agree on the shape.

/// A counter incremented by contending processes.
public struct Counter: Codable, Identifiable, Sendable {
    public var id: String
    public var value: Int

    public init(id: String, value: Int) {
        self.id = id
        self.value = value
    }
}

/// One record of a transaction written as a batch: after a kill, a batch is all there or not at all.
public struct BatchItem: Codable, Identifiable, Sendable {
    public var id: String
    public var batch: Int
    public var payload: String

    public init(id: String, batch: Int, payload: String) {
        self.id = id
        self.batch = batch
        self.payload = payload
    }
}
