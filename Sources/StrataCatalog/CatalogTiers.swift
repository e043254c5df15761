package import Foundation
package import StrataCore

/// What the move protocol (``CatalogMoves``) needs of a store's tiers: their open backends, a write of a value where a
/// location says, the durable removal of a copy, and the search of every tier for a key the catalog does not know.
///
/// `Storage` implements it over its registry, so the catalog moves values between tiers without importing any of
/// them.
package protocol CatalogTiers: AnyObject, Sendable {
    /// The active backend of `tier`, in the registry's box (call it there: copying it out costs more than the lookup).
    /// - Throws: ``/StrataCore/StorageError`` `.noBackend` naming `tier` and `key` when the tier has none.
    func opened(_ tier: Tier, key: String) throws -> BackendRegistry.Opened
    /// The active backend of `tier` when it is open already; `nil` otherwise. Nothing is opened: no server is
    /// contacted, no keyring unlocked.
    func openedIfOpen(_ tier: Tier) -> BackendRegistry.Opened?
    /// Writes `bytes` to `target` as `location` describes (a typed value's byte form becomes the native value of a
    /// tier that keeps one), without flushing. The tier sees `descriptor` when there is one.
    func store(
        _ bytes: Data, in target: any StorageBackend, at location: StorageLocation, as descriptor: DataDescriptor?
    ) throws
    /// Removes `key` from `tier` and makes the removal durable.
    /// - Parameters:
    ///   - skippingLocked: Whether a locked tier counts as holding no copy rather than failing.
    ///   - securely: Whether to erase the copy's bytes too (``/StrataCore/StorageBackend/deleteSecurely(_:)``).
    /// - Returns: Whether there was a copy.
    func removeCopy(of key: String, from tier: Tier, skippingLocked: Bool, securely: Bool) throws -> Bool
    /// Looks for `key`, which the catalog does not record, in every tier: found in exactly one, it is recorded there
    /// and returned with its location; in none, `nil`.
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` when several tiers hold a copy.
    func adopt(_ key: String) throws -> (value: Data, location: StorageLocation)?
}
