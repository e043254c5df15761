internal import CLibPQ

/// The rows of a finished statement. Frees libpq's result when released.
package final class PostgresResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    package var rowCount: Int { Int(PQntuples(result)) }

    /// Rows a command changed (`UPDATE`, `DELETE`, `INSERT`).
    package var changedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    package func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    package func text(_ row: Int, _ column: Int) -> String {
        String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// Lends a value's bytes without copying.
    package func withBytes<T>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let pointer = PQgetvalue(result, Int32(row), Int32(column))
        let count = Int(PQgetlength(result, Int32(row), Int32(column)))
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
