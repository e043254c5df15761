import StrataCore
public import StrataDefaults
import StrataPostgresClient
import Synchronization

extension PostgresDefaults {
    /// Calls `handler` after each change of the suite: at once for a change made through this instance
    /// (`isExternal` false), and for a change any other instance made, on this machine or another, once its
    /// notification arrives (`isExternal` true; the server sends it when the change commits). The first observer
    /// starts listening before this returns (waiting up to the connection's connect timeout for the server), so a
    /// change committed after it returns is heard. A connection to the server that was lost and opened again
    /// reports every watched key that is or was set as changed, since notifications sent meanwhile are lost.
    /// - Parameters:
    ///   - keys: The keys to watch, matched by their exact scalars. The default (`nil`) is every key.
    ///   - handler: Called on the thread that made the change, or on the listener's thread.
    /// - Returns: The observation; the calls stop when it is cancelled or released.
    public func observe(
        keys: Set<String>? = nil, _ handler: @escaping @Sendable (DefaultsChange) -> Void
    ) -> PostgresDefaultsObservation {
        let (id, starts) = observers.withLock { observers -> (UInt64, Bool) in
            observers.nextID += 1
            let watched = keys.map { Set($0.map { ExactString($0) }) }
            observers.registered[observers.nextID] = DefaultsObservers.Observer(keys: watched, handler: handler)
            let starts = observers.stop == nil && !observers.isStarting
            if starts { observers.isStarting = true }
            return (observers.nextID, starts)
        }
        if starts {
            // Started outside the lock: connecting may take up to the connect timeout.
            let known = Set(((try? allKeys()) ?? []).map { ExactString($0) })
            let stop = startListening()
            observers.withLock { observers in
                observers.isStarting = false
                observers.known.formUnion(known)
                if observers.registered.isEmpty { stop() } else { observers.stop = stop }
            }
        }
        return PostgresDefaultsObservation(defaults: self, id: id)
    }

    /// Removes an observer; the listener stops with the last one.
    func removeObserver(_ id: UInt64) {
        observers.withLock { observers in
            observers.registered[id] = nil
            if observers.registered.isEmpty { observers.stopListening() }
        }
    }

    /// Tells this instance's observers of its own change of `keys`.
    func notifyHere(_ keys: Set<String>) {
        let exact = Set(keys.map { ExactString($0) })
        for call in observers.withLock({ $0.deliveries(of: exact, isExternal: false) }) { call() }
    }

    /// Listens on the store's defaults channel for the other instances' changes of this suite, connected and
    /// listening when this returns (or after the connect timeout, when the server cannot be reached).
    private func startListening() -> @Sendable () -> Void {
        let (token, suite) = (token, suite)
        return PostgresListener.start(pool.configuration, channel: channel, waitingUntilListening: true) {
            [weak self] in
            guard let self else { return }
            // Notifications were lost while the connection was down: every key that is or was set may have changed.
            let current = Set(((try? allKeys()) ?? []).map { ExactString($0) })
            let calls = observers.withLock { observers in
                let changed = observers.known.union(current)
                return observers.deliveries(of: changed, isExternal: true)
            }
            for call in calls { call() }
        } onNotification: { [weak self] payload in
            guard let self, let key = Self.changedKey(in: payload, suite: suite, skipping: token) else { return }
            for call in observers.withLock({ $0.deliveries(of: [key], isExternal: true) }) { call() }
        }
    }

    /// The key a notification names when it is another instance's change of `suite` (compared by exact scalars).
    /// The payload is `<token> <suite's byte count> <suite><key>`, read by its bytes.
    static func changedKey(in payload: String, suite: String, skipping token: String) -> ExactString? {
        let bytes = Array(payload.utf8)
        guard let first = bytes.firstIndex(of: 0x20),
            let second = bytes[(first + 1)...].firstIndex(of: 0x20),
            let length = Int(String(decoding: bytes[(first + 1)..<second], as: UTF8.self)),
            String(decoding: bytes[..<first], as: UTF8.self) != token,
            bytes.count - (second + 1) >= length
        else { return nil }
        let split = second + 1 + length
        guard Array(suite.utf8) == Array(bytes[(second + 1)..<split]) else { return nil }
        return ExactString(String(decoding: bytes[split...], as: UTF8.self))
    }
}
