public import StrataCore
public import StrataFiles

// What the POSIX engine reports about itself; its operations are in PosixFileEngine.swift and its extensions.
extension PosixFileEngine: FileEngine {
    /// `filesystem`.
    public var name: String { "filesystem" }
    /// The tier folder.
    public var location: String { directory }
    /// Per-file locks across processes.
    public var concurrencyGuarantee: String { facts.concurrencyGuarantee }
    /// The configuration's ``FilesConfiguration/durability`` (coalescing is taken as durable).
    public var durability: Durability { facts.durability }
    /// The files folder (one file per key, at the key's relative path) and its lock folder.
    public var layout: [StorageLayoutEntry] { facts.layout }

    /// The facts of this engine.
    public var facts: BackendFacts { Self.facts(paths: paths, configuration: configuration) }
}
