import Dispatch
import StrataCore
import Synchronization

/// The parts of one multipart upload, each uploaded on a background thread as soon as it is handed over, at most
/// `limit` at once: ``submit(_:number:)`` waits for a free slot, so the parts held in memory stay bounded.
final class S3PartUploads: Sendable {
    private struct State {
        var parts: [S3CompletedPart] = []
        var failure: StorageError?
    }

    private let client: S3Client
    private let key: String
    let uploadID: String
    private let slots: DispatchSemaphore
    private let running = DispatchGroup()
    private let state = Mutex(State())

    init(client: S3Client, key: String, uploadID: String, limit: Int) {
        self.client = client
        self.key = key
        self.uploadID = uploadID
        self.slots = DispatchSemaphore(value: max(limit, 1))
    }

    /// Starts uploading part `number`, after waiting for a free slot.
    /// - Throws: The first failure of a part uploaded before: the upload cannot complete.
    func submit(_ bytes: [UInt8], number: Int) throws(StorageError) {
        slots.wait()
        if let failure = state.withLock({ $0.failure }) {
            slots.signal()
            throw failure
        }
        running.enter()
        DispatchQueue.global().async { [self] in
            defer {
                slots.signal()
                running.leave()
            }
            do throws(StorageError) {
                let part = try client.uploadPart(key, uploadID: uploadID, number: number, bytes: bytes)
                state.withLock { $0.parts.append(part) }
            } catch {
                state.withLock { if $0.failure == nil { $0.failure = error } }
            }
        }
    }

    /// Waits for every part under way.
    /// - Returns: The parts in number order, for the completion.
    /// - Throws: The first failure of a part.
    func finish() throws(StorageError) -> [S3CompletedPart] {
        running.wait()
        let (parts, failure) = state.withLock { ($0.parts, $0.failure) }
        if let failure { throw failure }
        return parts.sorted { $0.number < $1.number }
    }

    /// Waits for the parts under way, then abandons the upload (best effort: a server that is gone leaves it to
    /// ``S3FileEngine/removeLeftovers(olderThan:)``).
    func abort() {
        running.wait()
        try? client.abortMultipartUpload(key, uploadID: uploadID)
    }
}
