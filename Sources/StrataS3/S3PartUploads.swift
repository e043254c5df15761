import Dispatch
import StrataCore
import Synchronization

/// The parts of one multipart upload, each uploaded on a thread of its own as soon as it is handed over, at most
/// `limit` at once: ``submit(number:body:then:)`` waits for a free slot, so the parts held in memory stay bounded.
/// (Threads of its own, not Dispatch's pool: that pool is as wide as the processor count, and a part waiting on
/// the network holds its thread, so two cores sent two parts at a time whatever `limit` said.)
final class S3PartUploads: Sendable {
    private struct State {
        var parts: [S3CompletedPart] = []
        var failure: StorageError?
    }

    private let client: S3Client
    /// The key the upload creates.
    let key: String
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

    /// Starts uploading part `number` on a thread of its own, after waiting for a free slot, then calls `done`
    /// (whether the part went up or not).
    /// - Parameters:
    ///   - body: Makes the part's body, on the upload's thread (so that nothing holds it once the part is sent).
    ///   - done: Called when the part's request is over: a buffer it used can be reused.
    /// - Throws: The first failure of a part uploaded before: the upload cannot complete.
    func submit(
        number: Int, body: @escaping @Sendable () -> HTTPBody, then done: @escaping @Sendable () -> Void = {}
    ) throws(StorageError) {
        slots.wait()
        if let failure = state.withLock({ $0.failure }) {
            slots.signal()
            done()
            throw failure
        }
        running.enter()
        BlockingThreads.start { [self] in
            send(number: number, body: body)
            done()
            slots.signal()
            running.leave()
        }
    }

    private func send(number: Int, body: () -> HTTPBody) {
        do throws(StorageError) {
            let part = try client.uploadPart(key, uploadID: uploadID, number: number, body: body())
            state.withLock { $0.parts.append(part) }
        } catch {
            state.withLock { if $0.failure == nil { $0.failure = error } }
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
