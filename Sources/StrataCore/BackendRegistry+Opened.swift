extension BackendRegistry {
    /// An open backend and the facts it reported when it opened, as the registry keeps it.
    ///
    /// A lookup hands out this box rather than a copy of the backend: copying an `any StorageBackend` goes through
    /// the type's value witnesses, and retaining a backend that others hold weakly (a preference suite's watcher
    /// does) takes the reference count's slow path, both on every read through `Storage`. Retaining the box is one
    /// plain increment, and its backend is called where it lies.
    package final class Opened: Sendable {
        /// The backend.
        package let backend: any StorageBackend
        /// ``StorageBackend/facts``, asked once when it opened (they do not change).
        package let facts: BackendFacts

        init(_ backend: any StorageBackend) {
            self.backend = backend
            self.facts = backend.facts
        }
    }
}
