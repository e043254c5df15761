import StrataSecrets

// How much hashing a passphrase slot asks for, to bound what opening a repository costs.
extension PasswordHashCost {
    /// The Argon2id work: passes × bytes of memory (the time a derivation takes grows with both); `UInt64.max` for a
    /// cost past it (a damaged or hostile slot's).
    var work: UInt64 {
        guard memory >= 0 else { return .max }
        let (product, overflow) = operations.multipliedReportingOverflow(by: UInt64(memory))
        return overflow ? .max : product
    }
}
