import Foundation
import Persistible

/// How soon a watch sees another process's save.
///
/// A child process saves one record at a time when told to, and says on its standard output the moment its save
/// returned, on the monotonic clock both processes share; this process's watch notes the moment the element holding
/// that record arrived. The child saves without flushing, so that its save returns as soon as the file is renamed
/// into place, the moment the change becomes visible.
struct WatchWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run() throws -> WatchResult {
        let spaced = ChangeDetection.defaultCoalescingInterval * 3 / 2
        progress("watch latency, \(plan.watchLatencySaves) saves, \(formatDuration(spaced.seconds)) apart")
        let quiet = try latency(coalescingInterval: ChangeDetection.defaultCoalescingInterval, spacing: spaced)
        progress("watch latency, \(plan.watchLatencySaves) saves back to back, no coalescing")
        let burst = try latency(coalescingInterval: .zero, spacing: .zero)
        return WatchResult(quiet: quiet, burst: burst, spacing: spaced.seconds)
    }

    /// The seconds from each of the child's saves returning to the watch's element for it, and from asking the child
    /// to save to that element.
    private func latency(coalescingInterval: Duration, spacing: Duration) throws -> LatencySamples {
        try WatchRecord.deleteFile()
        let arrivals = Arrivals()
        let changes = WatchRecord.changes(detection: .events, coalescingInterval: coalescingInterval)
        let watcher = Task.detached {
            for await change in changes {
                let now = monotonicNanoseconds()
                if let count = try? change.values().count { arrivals.record(count: count, at: now) }
            }
        }
        defer { watcher.cancel() }
        guard arrivals.wait(for: 0) != nil else { throw WorkloadFailure(description: "watch: no first element") }

        let child = try ChildProcess(arguments: ["--child-save", sandbox.url.path])
        defer { child.stop() }
        var samples = LatencySamples(fromReturn: Samples(), fromRequest: Samples())
        for count in 1...plan.watchLatencySaves {
            if spacing > .zero { Thread.sleep(forTimeInterval: spacing.seconds) }
            let requested = monotonicNanoseconds()
            child.send("save")
            guard let line = child.readLine(), let saved = UInt64(line) else {
                throw WorkloadFailure(description: "watch: the child did not save (status \(child.exitStatus()))")
            }
            guard let arrived = arrivals.wait(for: count) else {
                throw WorkloadFailure(description: "watch: no element holding \(count) records within 5 s")
            }
            samples.fromReturn.add((Double(arrived) - Double(saved)) / 1e9)
            samples.fromRequest.add((Double(arrived) - Double(requested)) / 1e9)
        }
        try WatchRecord.deleteFile()
        return samples
    }
}

/// What the latency child saves; it skips the flushes, so that its save returns once the file is in place.
struct WatchRecord: Codable, Hashable, Persistible {
    var id: Int
    var name: String

    static var fileName: String { "watch" }
    static var archiveDurability: Durability { .noSync }
}

/// The child side of the latency measurement: `--child-save DIR`. For each line on standard input it saves one
/// more record, then writes the monotonic time at which the save returned.
enum ChildSaver {
    static func run(directory: URL) -> Int32 {
        var count = 0
        while readLine() != nil {
            count += 1
            do {
                try withArchiveDirectory(directory) {
                    try WatchRecord(id: count, name: "Person \(count), University of Ghana").saveToFile()
                }
            } catch {
                printError("child save: \(error)")
                return 1
            }
            let returned = monotonicNanoseconds()
            FileHandle.standardOutput.write(Data("\(returned)\n".utf8))
        }
        return 0
    }
}

/// When the watch's elements arrived, by the number of records they held.
final class Arrivals {
    private let condition = NSCondition()
    private var times: [Int: UInt64] = [:]

    func record(count: Int, at time: UInt64) {
        condition.lock()
        if times[count] == nil { times[count] = time }
        condition.broadcast()
        condition.unlock()
    }

    /// The arrival of the element holding `count` records, waiting up to five seconds for it.
    func wait(for count: Int) -> UInt64? {
        let deadline = Date(timeIntervalSinceNow: 5)
        condition.lock()
        defer { condition.unlock() }
        while times[count] == nil {
            guard condition.wait(until: deadline) else { return times[count] }
        }
        return times[count]
    }
}

// Every access to `times` holds `condition`'s lock.
extension Arrivals: @unchecked Sendable {}

/// The monotonic clock in nanoseconds: the same clock in every process of the machine.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
