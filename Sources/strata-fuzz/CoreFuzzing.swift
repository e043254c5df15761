// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    @testable import StrataCore

    /// What the fuzz target calls: the store configuration parser (`strata.conf`) on hostile files.
    enum CoreFuzzing {
        /// Reads `data` as a store's `strata.conf`. A file is either refused with a typed error that names it (and,
        /// when it names a line, one the file has), or read into a configuration that is written back (`rendered()`)
        /// and read again to the same configuration: `strata init` rewrites the file it read, so a value the reader
        /// takes must be one the writer can write.
        static func storeConfiguration(_ data: Data) {
            let path = "/fuzz/strata.conf"
            let configuration: StoreConfiguration
            do {
                configuration = try StoreConfiguration.parse(data, path: path)
            } catch let error as StorageError {
                guard error.code == .corrupt || error.code == .unsupportedVersion, error.path == path else {
                    fatalError("a configuration was refused with \(error)")
                }
                let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
                if let line = error.line, !(1...lines).contains(line) {
                    fatalError("a configuration of \(lines) lines was refused at line \(line): \(error)")
                }
                return
            } catch {
                fatalError("a configuration was refused with an error that is not a StorageError: \(error)")
            }
            let text: String
            do {
                text = try configuration.rendered()
            } catch {
                fatalError("a configuration that was read cannot be written back: \(error)")
            }
            do {
                var again = try StoreConfiguration.parse(Data(text.utf8), path: path)
                var read = configuration
                again.lines = [:]
                read.lines = [:]
                guard again == read else { fatalError("written back, a configuration reads differently:\n\(text)") }
            } catch {
                fatalError("written back, a configuration is refused: \(error)\n\(text)")
            }
        }
    }
#endif
