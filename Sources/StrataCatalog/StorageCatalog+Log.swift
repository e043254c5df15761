import Foundation
package import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Reading, repairing and compacting the log file. Every function here runs with the state mutex held; those
// that write (creating, truncating a torn tail, compacting) also hold the log lock.
extension StorageCatalog {
    /// Opens (or with `creating`, creates) the log and reads it whole.
    func openLog(_ state: inout CatalogState, creating: Bool) throws {
        if state.fd.rawValue >= 0 {
            state.fd.close()
            state.fd = FileDescriptor(rawValue: -1)
        }
        let fd: FileDescriptor
        do {
            fd = try Sys.open(logPath, .readWrite, creating ? [.append, .create, .noFollow] : [.append, .noFollow])
        } catch {
            throw error.storageError("cannot open the catalog log", path: logPath)
        }
        state.fd = fd
        let info: stat
        do {
            info = try Sys.fstat(fd)
            if info.st_size == 0 {
                guard creating else { throw StorageError(.corrupt, "the catalog log is empty", path: logPath) }
                var header = Self.magic
                withUnsafeBytes(of: Self.formatVersion.littleEndian) { header.append(contentsOf: $0) }
                header += [UInt8](repeating: 0, count: Self.headerSize - header.count)
                try header.withUnsafeBytes { try Sys.writeAll(fd, $0, path: logPath) }
                try Sys.fsync(fd, path: logPath)
                try syncDirectory()
            }
        } catch let error as Errno {
            throw error.storageError("cannot create the catalog log", path: logPath)
        }
        state.device = UInt64(info.st_dev)
        state.inode = UInt64(info.st_ino)
        state.entries = CatalogTable()
        state.intents = [:]
        state.offset = 0
        state.seen = sequence.value
        try readTail(&state, truncatingDamage: creating)
    }

    /// Catches up with what other processes appended since this one last looked, reopening the log if a
    /// compaction replaced it.
    func catchUp(_ state: inout CatalogState, truncatingDamage: Bool = false) throws {
        let now = sequence.value
        if let current = try? Sys.lstat(logPath),
            UInt64(current.st_ino) != state.inode || UInt64(current.st_dev) != state.device
        {
            try openLog(&state, creating: false)
        } else {
            try readTail(&state, truncatingDamage: truncatingDamage)
        }
        state.seen = now
    }

    /// Reads and applies every whole record after `state.offset`. A damaged or cut-short frame stops the read;
    /// with `truncatingDamage` (only under the log lock, when nobody else can be appending) it is cut off, so
    /// the next append starts on a clean frame boundary.
    func readTail(_ state: inout CatalogState, truncatingDamage: Bool) throws {
        let size: Int
        do {
            size = Int(try Sys.fstat(state.fd).st_size)
        } catch {
            throw error.storageError("cannot inspect the catalog log", path: logPath)
        }
        guard size > state.offset else { return }
        if state.offset == 0 {
            // A whole log: about 60 bytes a record. Sizing the tables once spares rehashing a million keys.
            state.entries.reserveCapacity(size / 80)
        }
        // Read in chunks, so a large log never sits in memory whole; a record cut by a chunk boundary is read
        // again with the next chunk.
        let chunkSize = 4 << 20
        var chunk = [UInt8](repeating: 0, count: min(chunkSize, size - state.offset))
        var start = state.offset
        var damage: String?
        var checkedHeader = state.offset > 0
        var batch: [CatalogRecord.Borrowed] = []
        var hashes: [UInt64] = []
        batch.reserveCapacity(Self.readBatch)
        hashes.reserveCapacity(Self.readBatch)
        reading: while start < size {
            let wanted = min(chunk.count, size - start)
            var filled = 0
            do {
                while filled < wanted {
                    let count = try chunk.withUnsafeMutableBytes {
                        try Sys.pread(
                            state.fd, UnsafeMutableRawBufferPointer(rebasing: $0[filled..<wanted]),
                            at: Int64(start + filled))
                    }
                    if count == 0 { break }
                    filled += count
                }
            } catch let error as Errno {
                throw error.storageError("cannot read the catalog log", path: logPath)
            }
            guard filled > 0 else { break reading }
            let reachesEnd = start + filled >= size
            var position = 0
            var ended = false
            try chunk.withUnsafeBytes { raw in
                let buffer = UnsafeRawBufferPointer(rebasing: raw[..<filled])
                if !checkedHeader {
                    try checkHeader(buffer)
                    checkedHeader = true
                    position = Self.headerSize
                }
                // Records are applied a batch at a time (see `CatalogState.apply`), always before the chunk's
                // bytes their keys point into are reused.
                defer {
                    state.apply(batch, hashes: &hashes)
                    batch.removeAll(keepingCapacity: true)
                }
                decoding: while position < buffer.count {
                    switch CatalogRecord.decode(buffer, at: position, strings: &state.strings) {
                    case .record(let record, let next):
                        batch.append(record)
                        if batch.count == Self.readBatch {
                            state.apply(batch, hashes: &hashes)
                            batch.removeAll(keepingCapacity: true)
                        }
                        position = next
                    case .incomplete where reachesEnd:
                        // The log ends inside a frame: a writer is appending it, or died appending it.
                        ended = true
                        if truncatingDamage { damage = "a record cut short" }
                        break decoding
                    case .incomplete:
                        // The frame continues in the next chunk: read again from its start.
                        break decoding
                    case .damaged(let why):
                        ended = true
                        damage = why
                        break decoding
                    }
                }
            }
            if position == 0, !ended {
                // Not one whole frame in a 4 MiB chunk, though frames are at most 64 KiB: damage.
                damage = "a record larger than any the catalog writes"
                break reading
            }
            start += position
            if ended || reachesEnd { break reading }
        }
        let position = start - state.offset
        state.offset += position
        if let damage, truncatingDamage {
            // Under the log lock nobody is appending: what follows the last whole record is the remains of a
            // writer that died mid-append, or damage. Either way the records after it cannot be trusted to
            // line up, and the tiers still hold every value: keys lost here are found again by probing.
            do {
                try Sys.ftruncate(state.fd, Int64(state.offset))
            } catch {
                throw error.storageError("cannot cut \(damage) off the end of the catalog log", path: logPath)
            }
        }
    }

    /// How many records are decoded before they are applied together.
    static let readBatch = 16

    func checkHeader(_ buffer: UnsafeRawBufferPointer) throws {
        guard buffer.count >= Self.headerSize, buffer.prefix(Self.magic.count).elementsEqual(Self.magic) else {
            throw StorageError(
                .corrupt, "the catalog log does not start with a catalog header", path: logPath,
                recovery: "Move the catalog folder aside; Strata rebuilds it from the tiers as keys are read")
        }
        let version = UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: Self.magic.count, as: UInt16.self))
        guard version <= Self.formatVersion else {
            throw StorageError(
                .unsupportedVersion,
                "the catalog log has format version \(version); this Strata reads up to \(Self.formatVersion)",
                path: logPath, recovery: "Open the store with the newer Strata that wrote it")
        }
    }

    /// Rewrites the log as one `set` per entry and one `intent` per unsettled move, atomically: a new file, synced,
    /// renamed over the old one. Other processes notice the new file when the change counter moves.
    func compact(_ state: inout CatalogState) throws {
        try AtomicFile.write(Data(Self.image(of: state)), to: logPath)
        try openLog(&state, creating: false)
        state.seen = sequence.bump()
    }

    /// A log that describes `state` whole: the header, one `set` per entry and one `intent` per unsettled move.
    static func image(of state: borrowing CatalogState) -> [UInt8] {
        var frame = Self.magic
        withUnsafeBytes(of: Self.formatVersion.littleEndian) { frame.append(contentsOf: $0) }
        frame += [UInt8](repeating: 0, count: Self.headerSize - frame.count)
        state.entries.forEach { key, entry in
            CatalogRecord.set(key: key, entry: entry).encode(into: &frame, strings: state.strings)
        }
        for (key, intent) in state.intents {
            CatalogRecord.intent(key: key.string, from: intent.from, to: intent.to).encode(
                into: &frame, strings: state.strings)
        }
        return frame
    }

    /// A log that describes `locations` and `intents` whole, as a compaction writes it: how a catalog engine that
    /// keeps its entries elsewhere hands a capture the file catalog's format, which every restore reads.
    /// - Throws: `.limitExceeded` past the log's 65,534 distinct backend names, rules and content types.
    package static func image(of locations: [StorageLocation], intents: [CatalogIntent]) throws -> [UInt8] {
        var state = CatalogState()
        for location in locations {
            state.entries.set(
                location.key, try entry(for: location, in: &state, path: capturedLogPath))
        }
        for intent in intents { state.intents[ExactString(intent.key)] = intent }
        return image(of: state)
    }

    func syncDirectory() throws(Errno) {
        let fd = try Sys.open(directory, .readOnly, .directory)
        try fd.closeAfter { () throws(Errno) in try Sys.fsync(fd, path: directory) }
    }
}
