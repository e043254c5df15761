import Foundation

/// "Did you mean …?": the known name closest to a mistyped one, when it is close enough to be the one meant.
enum Suggestion {
    /// The candidate nearest to `typed` by edit distance (an insertion, a deletion, a substitution or a swap of
    /// two neighbours each count one; case is ignored), if it is within a third of `typed`'s length (at least 1,
    /// at most 3): `fiels` finds `files`, `--roto` finds `--root`, but `-l` finds nothing (four edits from
    /// `--long`). Ties go to the first candidate.
    static func closest(to typed: String, in candidates: [String]) -> String? {
        let limit = min(3, max(1, typed.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != typed {
            let distance = editDistance(typed.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// `"; did you mean 'files'?"`, or `""` when nothing is close.
    static func phrase(for typed: String, in candidates: [String]) -> String {
        closest(to: typed, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The optimal string alignment distance between `a` and `b` (Levenshtein with swaps of neighbours).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
