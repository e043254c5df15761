import Foundation
import Synchronization
import Testing

@testable import StrataS3

/// The part buffers of a streamed write: a fixed set, mapped once each and reused, whatever the number of parts.
struct S3PartPoolTests {
    @Test func aPartPoolReusesItsBuffers() throws {
        let pool = S3PartPool(capacity: 3, bufferSize: 1 << 20)
        var held = try (0..<3).map { _ in try pool.take() }
        for _ in 0..<50 {
            let buffer = held.removeFirst()
            _ = [UInt8](repeating: 7, count: 1000).withUnsafeBytes { buffer.append($0) }
            pool.giveBack(buffer)
            let again = try pool.take()
            #expect(again.isEmpty)
            #expect(again.capacity == 1 << 20)
            held.append(again)
        }
        #expect(pool.allocations == 3)
    }

    @Test func aBufferTakesExactlyOnePart() throws {
        let buffer = try S3PartBuffer(capacity: 10)
        let source: [UInt8] = Array(0..<25)
        #expect(source.withUnsafeBytes { buffer.append($0) } == 10)
        #expect(buffer.isFull)
        #expect(source.withUnsafeBytes { buffer.append($0) } == 0)
        #expect(Array(buffer.bytes) == Array(0..<10))
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.capacity == 10)
    }

    /// The SHA-256 a part's signature carries is fed as the bytes are copied in: it must be the hash of exactly the
    /// bytes held, in however many pieces they came, and start afresh when the buffer is reused.
    @Test func aBufferHashesExactlyTheBytesItHolds() throws {
        let buffer = try S3PartBuffer(capacity: 1000)
        let source = (0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        func expected(_ bytes: ArraySlice<UInt8>) throws -> String { try S3Signer.hexSHA256(Array(bytes)) }
        #expect(try buffer.payloadHash() == expected([]))
        for (start, end) in [(0, 1), (1, 300), (300, 301), (301, 1500)] {
            _ = source[start..<end].withUnsafeBytes { buffer.append($0) }
        }
        #expect(buffer.isFull)
        #expect(try buffer.payloadHash() == expected(source[0..<1000]))
        #expect(try buffer.payloadHash() == expected(source[0..<1000]))
        buffer.removeAll()
        _ = source[700..<1500].withUnsafeBytes { buffer.append($0) }
        #expect(try buffer.payloadHash() == expected(source[700..<1500]))
        _ = source[0..<100].withUnsafeBytes { buffer.append($0) }
        #expect(try buffer.payloadHash() == expected(source[700..<1500] + source[0..<100]))
    }

    /// The bound the S3 engine's peak memory relies on: however many parts go through a pool, from however many
    /// threads, it never holds more than `capacity` buffers of one part at once.
    @Test func aPoolNeverHoldsMoreThanItsCapacityOfParts() throws {
        let capacity = 3
        let partSize = 64 << 10
        let reported = Atomic<Int>(0)
        let pool = S3PartPool(capacity: capacity, bufferSize: partSize) { _, held in
            reported.max(held, ordering: .relaxed)
        }
        let outstanding = Atomic<Int>(0)
        let mostOutstanding = Atomic<Int>(0)
        let done = DispatchGroup()
        for worker in 0..<8 {
            done.enter()
            Thread {
                for round in 0..<200 {
                    guard let buffer = try? pool.take() else { continue }
                    let now = outstanding.add(1, ordering: .sequentiallyConsistent).newValue
                    mostOutstanding.max(now, ordering: .sequentiallyConsistent)
                    _ = [UInt8](repeating: UInt8(worker), count: partSize).withUnsafeBytes { buffer.append($0) }
                    if round % 7 == 0 { usleep(100) }
                    outstanding.subtract(1, ordering: .sequentiallyConsistent)
                    pool.giveBack(buffer)
                }
                done.leave()
            }.start()
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(mostOutstanding.load(ordering: .sequentiallyConsistent) <= capacity)
        #expect(pool.allocations <= capacity)
        #expect(pool.heldBytes <= capacity * partSize)
        #expect(reported.load(ordering: .relaxed) <= capacity * partSize)
    }
}
