import Foundation
import StrataCore

extension BackendConformance {
    /// The backend reports its own facts: a concurrency guarantee of its own (not the protocol's default), a
    /// layout of at least one place, each with a location and a role, and no server address with a password.
    @Sendable static func reportsFacts(_ backend: any StorageBackend, _: Options) async throws {
        let check = "reports-facts"
        let guarantee = backend.concurrencyGuarantee
        try expect(!guarantee.isEmpty, check, "the concurrency guarantee is empty")
        try expect(
            !guarantee.contains("states nothing about several processes"), check,
            "the concurrency guarantee is the protocol's default; say what the backend guarantees (threads, "
                + "processes, its locking)")
        let layout = backend.layout
        try expect(!layout.isEmpty, check, "the layout is empty; report where the backend keeps its data")
        for entry in layout {
            try expect(!entry.location.isEmpty && !entry.role.isEmpty, check, "a layout entry is blank: \(entry)")
            if entry.kind == .server, let scheme = entry.location.range(of: "://") {
                let authority = entry.location[scheme.upperBound...].prefix { $0 != "/" }
                if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                    let password = authority[authority.index(after: colon)..<at]
                    try expect(
                        password.allSatisfy { $0 == "*" }, check, "the server address shows a password: \(entry)")
                }
            }
        }
    }
}
