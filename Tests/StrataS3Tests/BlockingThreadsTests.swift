import Foundation
import Synchronization
import Testing

@testable import StrataS3

/// The threads S3 requests run on: as many at once as asked, whatever the processor count.
struct BlockingThreadsTests {
    /// How many of the threads have arrived, and how many saw all the others arrive.
    final class Arrivals: Sendable {
        let arrived = Atomic<Int>(0)
        let sawAll = Atomic<Int>(0)
    }

    @Test func moreBlockedThreadsThanCoresAllRunAtOnce() {
        // Each thread waits (as a request waits on the network) until every other one has started: a pool as wide
        // as the cores (Dispatch's) would leave the rest queued behind the waiting ones.
        let width = max(8, ProcessInfo.processInfo.activeProcessorCount * 4)
        let arrivals = Arrivals()
        let done = DispatchGroup()
        for _ in 0..<width {
            done.enter()
            BlockingThreads.start {
                arrivals.arrived.add(1, ordering: .sequentiallyConsistent)
                let deadline = Date().addingTimeInterval(10)
                while arrivals.arrived.load(ordering: .sequentiallyConsistent) < width, Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.001)
                }
                if arrivals.arrived.load(ordering: .sequentiallyConsistent) == width {
                    arrivals.sawAll.add(1, ordering: .sequentiallyConsistent)
                }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(arrivals.sawAll.load(ordering: .sequentiallyConsistent) == width)
    }
}
