import Synchronization

/// Where backends are registered by tier and name, and looked up when a value is routed.
///
/// Factories run lazily, once: the first lookup opens the backend and later lookups share it. Registering a
/// factory under a name that exists replaces it (and drops the opened instance), which is how an app swaps in
/// an in-memory backend for tests or a custom one.
///
/// ```swift
/// let registry = BackendRegistry(root: try StoragePaths(root: "/tmp/app"))
/// registry.register(.defaults, name: "memory") { _ in InMemoryBackend(tier: .defaults) }
/// let backend = try registry.backend(for: .defaults)
/// ```
public final class BackendRegistry: Sendable {
    /// A backend factory: given the store's paths, open the backend.
    public typealias Factory = @Sendable (StoragePaths?) throws -> any StorageBackend

    /// One registration, as listed by ``registrations``.
    public struct Registration: Sendable, Hashable, CustomStringConvertible {
        /// The tier.
        public var tier: Tier
        /// The name it was registered under.
        public var name: String
        /// Whether lookups by tier alone return it.
        public var isActive: Bool

        public var description: String { "\(tier.rawValue)/\(name)\(isActive ? " (active)" : "")" }
    }

    private struct Entry {
        var factory: Factory
        var facts: BackendFacts?
        var instance: Opened?
    }

    private struct State {
        var entries: [Tier: [String: Entry]] = [:]
        var active: [Tier: String] = [:]
        /// The open instance of each tier's active backend, by `Tier.catalogCode`: what a read through `Storage`
        /// asks for, found without hashing a tier or a name. Refreshed by every change to `entries` or `active`.
        var openActive = [Opened?](repeating: nil, count: Tier.allCases.count)

        /// Brings `openActive` up to date for `tier`.
        mutating func refreshOpenActive(_ tier: Tier) {
            openActive[Int(tier.catalogCode)] = active[tier].flatMap { entries[tier]?[$0]?.instance }
        }
    }

    /// The store's paths handed to every factory, or `nil` for a registry of purely in-memory backends.
    public let paths: StoragePaths?
    // Guarded by its own lock. Factories run outside the lock (they may take file locks and be slow); a
    // race between two first lookups is settled by keeping the first instance stored.
    private let state = Mutex(State())

    /// Creates an empty registry.
    /// - Parameter paths: The store layout passed to factories. The default is `nil`.
    public init(paths: StoragePaths? = nil) {
        self.paths = paths
    }

    /// Registers (or replaces) a backend factory.
    /// - Parameters:
    ///   - tier: The tier it serves.
    ///   - name: The name it is registered under; registering the same tier and name again replaces it.
    ///   - makeActive: Whether lookups by tier alone should return it from now on. The first registration for
    ///     a tier is always made active.
    ///   - facts: What the backend will report about itself (``StorageBackend/facts``), when they are known
    ///     without opening it; ``facts(for:)`` then answers without opening it. The default is `nil`.
    ///   - factory: Opens the backend; runs at the first lookup.
    public func register(
        _ tier: Tier, name: String, makeActive: Bool = true, facts: BackendFacts? = nil,
        factory: @escaping Factory
    ) {
        state.withLock { state in
            state.entries[tier, default: [:]][name] = Entry(factory: factory, facts: facts, instance: nil)
            if makeActive || state.active[tier] == nil { state.active[tier] = name }
            state.refreshOpenActive(tier)
        }
    }

    /// Removes a registration.
    /// - Returns: Whether there was one. If it was active, another registration of the tier (the first by
    ///   name) becomes active.
    @discardableResult
    public func unregister(_ tier: Tier, name: String) -> Bool {
        state.withLock { state in
            guard state.entries[tier]?.removeValue(forKey: name) != nil else { return false }
            if state.active[tier] == name { state.active[tier] = state.entries[tier]?.keys.sorted().first }
            state.refreshOpenActive(tier)
            return true
        }
    }

    /// Makes a registered backend the one returned for its tier.
    /// - Throws: ``StorageError`` `.noBackend` when nothing is registered under that name.
    public func activate(_ tier: Tier, name: String) throws {
        try state.withLock { state throws(StorageError) in
            guard state.entries[tier]?[name] != nil else {
                throw Self.missing(tier, name: name, known: state.entries[tier].map { Array($0.keys) } ?? [])
            }
            state.active[tier] = name
            state.refreshOpenActive(tier)
        }
    }

    /// Every registration, sorted by tier then name.
    public var registrations: [Registration] {
        state.withLock { state in
            Tier.allCases.flatMap { tier in
                (state.entries[tier] ?? [:]).keys.sorted().map {
                    Registration(tier: tier, name: $0, isActive: state.active[tier] == $0)
                }
            }
        }
    }

    /// Whether a backend is registered for the tier.
    public func hasBackend(for tier: Tier) -> Bool {
        state.withLock { $0.active[tier] != nil }
    }

    /// The active backend of a tier, opened on first use.
    /// - Throws: ``StorageError`` `.noBackend` when no backend is registered for the tier, or
    ///   `.backendUnavailable` (or the factory's own ``StorageError``) when opening it fails.
    public func backend(for tier: Tier) throws -> any StorageBackend {
        try opened(for: tier).backend
    }

    /// The active backend of a tier, opened on first use, in the box the registry keeps it in.
    /// - Throws: As ``backend(for:)``.
    package func opened(for tier: Tier) throws -> Opened {
        // One lock and one array read when the active backend is open: the path every read through `Storage` takes.
        let slot = Int(tier.catalogCode)
        if let instance = state.withLock({ $0.openActive[slot] }) { return instance }
        guard let name = state.withLock({ $0.active[tier] }) else { throw Self.missing(tier, name: nil, known: []) }
        return try opened(for: tier, named: name)
    }

    /// The box of a tier's active backend when it is open already; `nil` otherwise (nothing is opened).
    package func openedIfOpen(for tier: Tier) -> Opened? {
        state.withLock { $0.openActive[Int(tier.catalogCode)] }
    }

    /// The facts of a tier's active backend (its name, concurrency guarantee, durability and layout): the open
    /// instance's (asked once, when it opened), else those given when it was registered, else it is opened to ask
    /// it. Asking never connects to
    /// a server or unlocks a keyring that a built-in backend would need.
    /// - Throws: As ``backend(for:)``, when the backend must be opened to answer.
    public func facts(for tier: Tier) throws -> BackendFacts {
        if let instance = state.withLock({ $0.openActive[Int(tier.catalogCode)] }) { return instance.facts }
        let known = try state.withLock { state throws(StorageError) -> BackendFacts? in
            guard let name = state.active[tier], let entry = state.entries[tier]?[name] else {
                throw Self.missing(tier, name: nil, known: [])
            }
            return entry.facts
        }
        return try known ?? backend(for: tier).facts
    }

    /// A backend by tier and name, opened on first use.
    /// - Throws: ``StorageError`` `.noBackend` when nothing is registered under the name.
    public func backend(for tier: Tier, named name: String) throws -> any StorageBackend {
        try opened(for: tier, named: name).backend
    }

    private func opened(for tier: Tier, named name: String) throws -> Opened {
        let factory = try state.withLock { state throws(StorageError) -> Factory? in
            guard let entry = state.entries[tier]?[name] else {
                throw Self.missing(tier, name: name, known: state.entries[tier].map { Array($0.keys) } ?? [])
            }
            return entry.instance == nil ? entry.factory : nil
        }
        guard let factory else {
            if let instance = state.withLock({ $0.entries[tier]?[name]?.instance }) { return instance }
            return try opened(for: tier, named: name)  // Unregistered meanwhile: report as usual.
        }
        let opened: any StorageBackend
        do {
            opened = try factory(paths)
        } catch let error as StorageError {
            throw error.attributed(tier: tier, key: nil)
        } catch {
            throw StorageError(
                .backendUnavailable, "the \(tier.rawValue) backend '\(name)' failed to open: \(error)", tier: tier)
        }
        // Once open, the backend speaks for itself (asked once, outside the lock: its facts do not change).
        let instance = Opened(opened)
        return state.withLock { state in
            if let existing = state.entries[tier]?[name]?.instance { return existing }
            state.entries[tier]?[name]?.facts = instance.facts
            state.entries[tier]?[name]?.instance = instance
            state.refreshOpenActive(tier)
            return instance
        }
    }

    private static func missing(_ tier: Tier, name: String?, known: [String]) -> StorageError {
        let what =
            name.map { "no \(tier.rawValue) backend is registered under the name '\($0)'" }
            ?? "no backend is registered for the \(tier.rawValue) tier"
        let hint =
            known.isEmpty
            ? "Register one with BackendRegistry.register(.\(tier.rawValue), name:factory:)"
            : "Registered: \(known.sorted().joined(separator: ", "))"
        return StorageError(.noBackend, what, tier: tier, recovery: hint)
    }
}
