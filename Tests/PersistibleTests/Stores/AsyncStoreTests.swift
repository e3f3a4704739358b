import Foundation
import Persistible
import Testing

@Suite struct AsyncStoreTests {
    /// More async writes than the machine has cores wait for a lock that another process holds; other tasks must
    /// still run meanwhile. Were the waits on the cooperative pool, every pool thread would be blocked and the
    /// probe task below could never run. A watchdog thread, outside the pool, then releases the lock after 60
    /// seconds so that the test fails instead of hanging. The bound is that long because in a parallel run the
    /// synchronous tests that drive child processes and mounted file systems hold the pool's threads for seconds
    /// at a time (on two cores, its only two), which delays the probe without anything being wrong.
    @Test func asyncWritesWaitingForALockLeaveTheCooperativePoolFree() async throws {
        let directory = try TemporaryDirectory()
        let holder = try ChildProcess("StressWriter", ["hold", directory.path], input: true)
        let announcement = holder.output.fileHandleForReading.readData(ofLength: 7)
        #expect(String(decoding: announcement, as: UTF8.self) == "locked\n")

        let lockInput = holder.input.fileHandleForWriting
        let release: @Sendable () -> Void = { lockInput.write(Data("release\n".utf8)) }
        let probed = DispatchSemaphore(value: 0)
        let watchdogFired = Counter()
        Thread {
            if probed.wait(timeout: .now() + 60) == .timedOut {
                watchdogFired.increment()
                release()
            }
        }.start()

        // Waiting as long as it takes: the lock is held for as long as the probe takes to run.
        let store = FileStore<StressRecord>(url: directory.file("stress.json"), lockTimeout: nil)
        let waiters = 4 * ProcessInfo.processInfo.activeProcessorCount
        let finished = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<waiters {
                group.addTask {
                    try await store.insert(StressRecord(id: "waiter-\(index)"))
                    finished.increment()
                }
            }
            let probe = await Task { 42 }.value
            probed.signal()
            #expect(probe == 42)
            #expect(watchdogFired.value == 0, "other tasks could not run while writes waited for the lock")
            // The lock is still held, so no write can have finished.
            #expect(finished.value == 0)
            if watchdogFired.value == 0 { release() }
            try await group.waitForAll()
        }
        #expect(holder.finish().status == 0)
        #expect(try await Set(store.all().map(\.id)) == Set((0..<waiters).map { "waiter-\($0)" }))
    }
}
