internal import CStrataSystem

/// CRC-32C (Castagnoli), computed with the processor's instruction where there is one (StrataCore frames each
/// record of the catalog log with it).
package enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    /// Whether the processor computes CRC-32C itself (SSE 4.2 on x86-64, the CRC extension on ARMv8): ten times
    /// the table's speed, which is most of the work of checking a large log.
    package static let isAccelerated = strata_crc32c_accelerated() != 0

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard isAccelerated, let base = bytes.baseAddress else { return softwareChecksum(bytes) }
        return strata_crc32c_update(0xFFFF_FFFF, base, bytes.count) ^ 0xFFFF_FFFF
    }

    /// The checksum of `bytes` by table, one byte at a time: the fallback, and the reference the tests compare
    /// the processor's instruction with.
    package static func softwareChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
