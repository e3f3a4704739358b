import Foundation
import Persistible

/// How soon a watch sees another process's save, and what a watch costs while nothing changes.
///
/// Latency: a child process saves one record at a time when told to, and says on its standard output the moment its
/// save returned, on the monotonic clock both processes share; this process's watch notes the moment the element
/// holding that record arrived. The child saves without flushing, so that its save returns as soon as the file is
/// renamed into place, the moment the change becomes visible.
///
/// Idle cost: the CPU time this whole process spends while a watch waits for a change that never comes, against the
/// same time with no watch, and the number of times the watch's thread woke up.
struct WatchWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run() throws -> WatchResult {
        let spaced = ChangeDetection.defaultCoalescingInterval * 3 / 2
        progress("watch latency, \(plan.watchLatencySaves) saves, \(formatDuration(spaced.seconds)) apart")
        let quiet = try latency(coalescingInterval: ChangeDetection.defaultCoalescingInterval, spacing: spaced)
        progress("watch latency, \(plan.watchLatencySaves) saves back to back, no coalescing")
        let burst = try latency(coalescingInterval: .zero, spacing: .zero)

        let polling = ChangeDetection.defaultPollingInterval
        let contenders: [(String, ChangeDetection?)] = [
            ("no watch", nil), ("events", .events),
            ("polling, every \(formatDuration(polling.seconds))", .polling(every: polling)),
        ]
        var rows = contenders.map { IdleRow(name: $0.0, cpu: Samples(), wakeups: nil) }
        for round in 0..<plan.watchIdleRepetitions {
            try interleave(round: round, contenders.indices.map { index in
                {
                    progress("watch idle, \(rows[index].name), \(formatDuration(plan.watchIdleSeconds))")
                    let (cpu, wakeups) = try self.idle(detection: contenders[index].1)
                    rows[index].cpu.add(cpu)
                    if let wakeups { rows[index].wakeups = max(rows[index].wakeups ?? 0, wakeups) }
                }
            })
        }
        return WatchResult(
            quiet: quiet, burst: burst, spacing: spaced.seconds, idle: rows, idleSeconds: plan.watchIdleSeconds
        )
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

    /// The CPU seconds this process spends over the idle period, and how often the watch thread woke up in it.
    private func idle(detection: ChangeDetection?) throws -> (Double, Int?) {
        try WatchRecord.deleteFile()
        let arrivals = Arrivals()
        let watcher = detection.map { detection in
            let changes = WatchRecord.changes(detection: detection)
            return Task.detached {
                for await change in changes {
                    let now = monotonicNanoseconds()
                    if let count = try? change.values().count { arrivals.record(count: count, at: now) }
                }
            }
        }
        defer { watcher?.cancel() }
        if watcher != nil, arrivals.wait(for: 0) == nil {
            throw WorkloadFailure(description: "watch: no first element")
        }
        let threadBefore = watchThreadSwitches()
        let before = processCPUSeconds()
        Thread.sleep(forTimeInterval: plan.watchIdleSeconds)
        let cpu = processCPUSeconds() - before
        let threadAfter = watchThreadSwitches()
        let wakeups = detection == .events ? threadAfter.flatMap { after in threadBefore.map { after - $0 } } : nil
        return (cpu, wakeups)
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

/// The user and system CPU time of the whole process so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// How many times the watch thread has been switched in (each a wake-up), or `nil` where it cannot be told.
func watchThreadSwitches() -> Int? {
    #if os(Linux)
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    for task in tasks {
        let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
        guard name?.trimmingCharacters(in: .whitespacesAndNewlines) == "persistible-wat",
            let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
        else { continue }
        return status.split(separator: "\n").filter { $0.hasSuffix("ctxt_switches") || $0.contains("ctxt_switches:") }
            .compactMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            .reduce(0, +)
    }
    #endif
    return nil
}
