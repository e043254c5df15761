import Strata

/// What a checking verb (`verify`, `files verify`, `records verify`) throws after printing the problems it found,
/// so the process exits 1 with a typed error line.
enum Verdict {
    /// The error for `count` problems found on `tier` (`nil`: the whole store).
    static func failed(_ count: Int, tier: Tier?) -> StorageError {
        StorageError(
            .corrupt, "\(count) problem(s) found", tier: tier,
            recovery: "The problems are listed above; restore what they name from a backup, or remove it")
    }
}
