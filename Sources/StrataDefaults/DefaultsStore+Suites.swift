import StrataCore
import Synchronization

// Keys that name their own suite (``DefaultsKey/suite``): a store serves them through a store on that suite,
// opened once with the same root and configuration and kept for the store's life. Stores on one suite file share
// their state in this process (``SuiteTable``), so that store sees, and is seen by, every other store on it.
extension DefaultsStore {
    /// The store that holds `key`: this one, unless the key names another suite.
    /// - Throws: ``StorageError`` `.invalidArgument` for a bad suite name, or what opening the suite throws.
    func home<Value>(of key: DefaultsKey<Value>) throws(StorageError) -> DefaultsStore {
        guard let name = key.suite else { return self }
        let suite = ExactString(name)
        if suite == ExactString(self.suite) { return self }
        if let open = suiteStores.withLock({ $0[suite] }) { return open }
        let opened: DefaultsStore
        do {
            opened = try DefaultsStore(suite: name, paths: paths, configuration: configuration)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.io, "cannot open the suite '\(name)': \(error)", tier: .defaults, key: key.name)
        }
        return suiteStores.withLock { stores in
            if let raced = stores[suite] { return raced }
            stores[suite] = opened
            return opened
        }
    }

    /// Flushes the stores opened for keys of other suites.
    func flushSuiteStores() throws {
        for store in suiteStores.withLock({ Array($0.values) }) { try store.flush() }
    }

    /// Closes the stores opened for keys of other suites (other stores on those suites stay open).
    func closeSuiteStores() throws {
        for store in suiteStores.withLock({ Array($0.values) }) { try store.close() }
    }
}
