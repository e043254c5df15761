/// The libdeflate level of each piece of an export (a gzip member, a zip entry compressed whole), so that the
/// export's level means the ratio of zlib's level.
///
/// Measured on PDF-like documents: libdeflate's levels 1–5 and 7–9 compress within 0.4% of zlib's same level or
/// better, but its level 6 comes to 1.0115× `gzip -6`, while its level 7 costs about 1.7 times its level 6. At
/// level 6 a quarter of the input's bytes (in order: the first piece, then whenever the raised share falls to a
/// quarter) is compressed at level 7: 1.008× `gzip -6` for about 1.18 times the CPU of level 6 alone. The choice
/// depends only on the pieces' sizes, so the output does not depend on the thread count.
struct LevelBlend {
    /// The export's level.
    let level: Int32
    private var bytes = 0
    private var raisedBytes = 0

    init(level: Int32) { self.level = level }

    /// The libdeflate level of the next piece, of `count` input bytes.
    mutating func level(forNext count: Int) -> Int32 {
        defer { bytes += count }
        guard level == 6 else { return level }
        guard raisedBytes * 4 <= bytes else { return level }
        raisedBytes += count
        return 7
    }
}
