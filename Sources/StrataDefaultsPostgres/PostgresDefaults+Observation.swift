public import StrataDefaults
import StrataPostgresClient
import Synchronization

extension PostgresDefaults {
    /// Calls `handler` after each change of the suite: at once for a change made through this instance
    /// (`isExternal` false), and for a change any other instance made, on this machine or another, once its
    /// notification arrives (`isExternal` true; the server sends it when the change commits, and it arrives within
    /// a tenth of a second of reaching this machine). A connection to the server that was lost and opened again
    /// reports every watched key as changed, since notifications sent meanwhile are lost.
    /// - Parameters:
    ///   - keys: The keys to watch. The default (`nil`) is every key.
    ///   - handler: Called on the thread that made the change, or on the listener's thread.
    /// - Returns: The observation; the calls stop when it is cancelled or released.
    public func observe(
        keys: Set<String>? = nil, _ handler: @escaping @Sendable (DefaultsChange) -> Void
    ) -> PostgresDefaultsObservation {
        let id = observers.withLock { observers -> UInt64 in
            observers.nextID += 1
            observers.registered[observers.nextID] = DefaultsObservers.Observer(keys: keys, handler: handler)
            if observers.stop == nil { observers.stop = startListening() }
            return observers.nextID
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
        for call in observers.withLock({ $0.deliveries(of: keys, isExternal: false) }) { call() }
    }

    /// Listens on the store's defaults channel for the other instances' changes of this suite.
    private func startListening() -> @Sendable () -> Void {
        let (token, suite) = (token, suite)
        return PostgresListener.start(pool.configuration, channel: channel) { [weak self] in
            guard let self else { return }
            // Notifications were lost while the connection was down: every watched key may have changed.
            let current = Set((try? allKeys()) ?? [])
            let calls = observers.withLock { observers in
                observers.registered.values.map { observer in
                    let keys = observer.keys ?? current
                    return { observer.handler(DefaultsChange(keys: keys, isExternal: true)) }
                }
            }
            for call in calls { call() }
        } onNotification: { [weak self] payload in
            guard let self, let key = Self.changedKey(in: payload, suite: suite, skipping: token) else { return }
            for call in observers.withLock({ $0.deliveries(of: [key], isExternal: true) }) { call() }
        }
    }

    /// The key a notification names when it is another instance's change of `suite`.
    static func changedKey(in payload: String, suite: String, skipping token: String) -> String? {
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] != token, let length = Int(parts[1]) else { return nil }
        let rest = parts[2].utf8
        guard rest.count >= length else { return nil }
        let split = rest.index(rest.startIndex, offsetBy: length)
        guard String(parts[2][..<split]) == suite else { return nil }
        return String(parts[2][split...])
    }
}
