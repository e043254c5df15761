/// How far apart two field names are, to name the field a mistyped one probably meant.
package enum FieldDistance {
    /// The path among `candidates` nearest to `path`: one that differs only in case first, then the fewest edits
    /// (insertions, deletions, substitutions and swaps of neighbours, over Unicode scalars), then the shortest and first by name. `nil` when there are none.
    package static func nearest(to path: String, among candidates: [String]) -> String? {
        if let sameLetters = candidates.first(where: { $0.lowercased() == path.lowercased() }) { return sameLetters }
        let target = Array(path.unicodeScalars)
        return candidates.min { a, b in
            let (da, db) = (distance(target, Array(a.unicodeScalars)), distance(target, Array(b.unicodeScalars)))
            return (da, a.utf8.count, a) < (db, b.utf8.count, b)
        }
    }

    /// The edit distance with swaps of neighbours (optimal string alignment): `kidn` is one edit from `kind`.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = Swift.min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = Swift.min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
