/// What an import finds at a key of the store before it extracts anything.
package enum StoreNodeKind {
    /// A file.
    case file
    /// A folder (on an object store: a prefix with files under it).
    case folder
    /// Something else (a device, a socket): never replaced.
    case other
}
