import Synchronization

/// What the steps of one capture of a whole store share at its instant: resources a backend opens once for every
/// tier that reads from the same place — one database transaction, so that every tier on one server and schema is
/// read from one snapshot — each under a key of the backend's own type. A capture of a store makes one, hands it to
/// every step's ``TierCapture/pin(into:at:)``, and ends it once every step finished.
public final class CaptureInstant: Sendable {
    private let resources = Mutex<[AnyHashable: Held]>([:])

    /// A resource held under its key (a box, so the mutex's state is `Sendable`: each resource is used by the one
    /// thread that runs the capture's steps).
    private struct Held: @unchecked Sendable {
        let resource: any CaptureResource
    }

    /// Creates an instant with nothing opened.
    public init() {}

    /// The resource under `key`, made by `make` the first time a step asks for it.
    /// - Throws: What `make` throws (nothing is kept then).
    public func resource<Key: Hashable & Sendable, Resource: CaptureResource>(
        for key: Key, _ make: () throws -> Resource
    ) throws -> Resource {
        if let held = resources.withLock({ $0[AnyHashable(key)] }), let resource = held.resource as? Resource {
            return resource
        }
        let made = try make()
        resources.withLock { $0[AnyHashable(key)] = Held(resource: made) }
        return made
    }

    /// Ends every resource (``CaptureResource/end()``) and forgets them.
    public func end() {
        let held = resources.withLock { resources in
            defer { resources.removeAll() }
            return Array(resources.values)
        }
        for entry in held { entry.resource.end() }
    }
}

/// A resource that the steps of one capture share (``CaptureInstant``): ended when the capture ends.
public protocol CaptureResource: AnyObject {
    /// Lets the resource go (a transaction is ended, a connection closed). Called once; errors are the resource's
    /// to swallow, since everything read from it was read already.
    func end()
}
