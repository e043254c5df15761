import Foundation
import Strata
import StrataCore
import StrataSecrets
import StrataTestSupport

/// The child modes of the fleet linearizability test; `false` when `arguments` names none of them.
func runFleetMode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "fleet-worker":
        // fleet-worker ROOT PROCESS INCARNATION DEADLINE SEED LOG: open the shared store ROOT declares (its strata.conf:
        // catalog, records, defaults and secrets on the test server, files on the gateway), say `ready`, then put, read,
        // move, delete and list the fleet's hot keys at random until the monotonic clock passes DEADLINE (ns),
        // writing each operation's call and return to LOG (JSON lines) as it goes; then say `done N`. Before each move
        // and each put (any put may move the key from another tier) it says `moving ID`,
        // so that a test can kill it in the middle of one. An operation that throws is logged as failed and the
        // worker goes on (the servers may be frozen, restarted or killed under it), after a short pause, so that a
        // server out of reach does not fill the history with thousands of failed calls.
        let process = Int(arguments[2]) ?? 0
        let incarnation = Int(arguments[3]) ?? 0
        let deadline = UInt64(arguments[4]) ?? 0
        let storage = try openFleetStore(arguments, until: deadline)
        var generator = SeededGenerator(seed: (UInt64(arguments[5]) ?? 1) &+ UInt64(process << 16 | incarnation))
        _ = FileManager.default.createFile(atPath: arguments[6], contents: nil)
        guard let log = FileHandle(forWritingAtPath: arguments[6]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: arguments[6]])
        }
        say("ready")
        var count = 0
        while LinearizabilityLogLine.now() < deadline {
            let id = "w\(process).\(incarnation).\(count)"
            count += 1
            let key = FleetWorkload.keys.randomElement(using: &generator)!
            let roll = Int.random(in: 0..<100, using: &generator)
            if roll >= 95 {
                if try !list(storage, id: id, process: process, log: log) {
                    usleep(UInt32.random(in: 20_000...60_000, using: &generator))
                }
                continue
            }
            let call: LinearizabilityCall
            let operation: () throws -> LinearizabilityResponse
            var moving = false
            switch roll {
            case 0..<40:
                let size = FleetWorkload.size(using: &generator)
                let value = FleetWorkload.value(id: id, size: size)
                moving = true  // Any put may move the key from another tier.
                call = .put(value.identifier)
                operation = {
                    do {
                        try storage.put(value.data, for: key, as: value.descriptor)
                        return .ok
                    } catch let error as StorageError where error.code == .wrongTier {
                        return .refused(error.message)  // A value over a credential, which only secrets take.
                    }
                }
            case 40..<70:
                call = .get
                operation = { .value(try storage.data(for: key).map(FleetWorkload.identifier(of:))) }
            case 70..<82:
                let tier: Tier = Bool.random(using: &generator) ? .records : .files
                moving = true
                call = .move(tier.rawValue)
                operation = {
                    do {
                        try storage.move(key, to: tier)
                        return .ok
                    } catch let error as StorageError where error.code == .notFound {
                        return .notFound
                    } catch let error as StorageError where error.code == .wrongTier {
                        return .refused(error.message)  // A credential, which only secrets take.
                    }
                }
            default:
                call = .delete
                operation = { .existed(try storage.delete(key)) }
            }
            log.write(
                try LinearizabilityLogLine.call(
                    call, id: id, process: process, key: key, at: LinearizabilityLogLine.now()
                ).encoded())
            if moving { say("moving \(id)") }
            let response: LinearizabilityResponse
            do { response = try operation() } catch { response = .failed("\(error)") }
            log.write(
                try LinearizabilityLogLine.response(
                    response, id: id, process: process, key: key, at: LinearizabilityLogLine.now()
                ).encoded())
            if case .failed = response { usleep(UInt32.random(in: 20_000...60_000, using: &generator)) }
        }
        say("done \(count)")
        return true
    default:
        return false
    }
}

/// Opens the worker's store (the arguments of `fleet-worker`), trying again every 200 ms until `deadline` while the
/// servers cannot be reached (a worker started again while PostgreSQL or the gateway is down).
private func openFleetStore(_ arguments: [String], until deadline: UInt64) throws -> Storage {
    while true {
        do {
            // The root is declared shared (its strata.conf): catalog, records, defaults and secrets on the server.
            return try Storage(root: arguments[1], secretsKey: .inMemory(Secret(Data(repeating: 0x5a, count: 32))))
        } catch {
            guard LinearizabilityLogLine.now() < deadline else { throw error }
            say("open failed, trying again: \(error)")
            usleep(200_000)
        }
    }
}

/// A listing of the hot keys, logged as one read of each key's existence (the same interval for all).
/// - Returns: Whether the listing answered (not an error).
private func list(_ storage: Storage, id: String, process: Int, log: FileHandle) throws -> Bool {
    let call = LinearizabilityCall.list(prefix: FleetWorkload.prefix)
    let invoked = LinearizabilityLogLine.now()
    for key in FleetWorkload.keys {
        log.write(
            try LinearizabilityLogLine.call(call, id: "\(id)/\(key)", process: process, key: key, at: invoked).encoded()
        )
    }
    let listed: Result<Set<String>, any Error> = Result { Set(try storage.keys(prefix: FleetWorkload.prefix)) }
    let responded = LinearizabilityLogLine.now()
    for key in FleetWorkload.keys {
        let response: LinearizabilityResponse
        switch listed {
        case .success(let keys): response = .listed(keys.contains(key))
        case .failure(let error): response = .failed("\(error)")
        }
        log.write(
            try LinearizabilityLogLine.response(response, id: "\(id)/\(key)", process: process, key: key, at: responded)
                .encoded())
    }
    if case .failure = listed { return false }
    return true
}
