/// Advisory lock keys by name: 64 bits of FNV-1a of the name's UTF-8, the same in every process on every machine, so
/// that every engine of a store that names a lock the same way takes the same lock.
package enum PostgresAdvisoryLock {
    /// The key of the lock called `name` (`strata-records:<schema>`, `strata-defaults:<schema>:<suite>`).
    package static func key(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: hash)
    }
}
