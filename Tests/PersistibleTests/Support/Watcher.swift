import Foundation
import Persistible

/// The value the ChangeWriter child process writes; the same declaration lives there.
struct Watched: Codable, Hashable, Persistible, Sendable {
    var name: String
    var number: Int

    static var fileName: String { "watched" }
    static var archiveDurability: Durability { .noSync }
}

/// Iterates a change sequence in a task of its own and hands its elements to a test, which waits for the one it
/// expects with a deadline instead of sleeping.
struct Watcher<Element: Sendable>: ~Copyable {
    private enum Event: Sendable {
        case element(Element)
        case deadline(UInt64)
        case end
    }

    private let task: Task<Void, Never>
    private let continuation: AsyncStream<Event>.Continuation
    private var iterator: AsyncStream<Event>.Iterator
    private var waits: UInt64 = 0
    /// Every element received so far.
    private(set) var received: [Element] = []

    private init(_ iterate: @escaping @Sendable (@escaping @Sendable (Element) -> Void) async -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
        task = Task {
            await iterate { continuation.yield(.element($0)) }
            continuation.yield(.end)
        }
    }

    init<T: Sendable>(_ changes: ArchiveChanges<T>) where Element == ArchiveChange<T> {
        self.init { yield in
            for await change in changes { yield(change) }
        }
    }

    init<T: Sendable>(_ changes: StoreChanges<T>) where Element == Result<[T], PersistenceError> {
        self.init { yield in
            for await change in changes { yield(change) }
        }
    }

    /// The next element that satisfies `condition`, or `nil` if none arrives within `timeout`.
    mutating func next(
        within timeout: Duration = .seconds(1), where condition: (Element) -> Bool = { _ in true }
    ) async -> Element? {
        waits += 1
        let wait = waits
        let timer = Task { [continuation] in
            try? await Task.sleep(for: timeout)
            continuation.yield(.deadline(wait))
        }
        defer { timer.cancel() }
        while let event = await iterator.next() {
            switch event {
            case .element(let element):
                received.append(element)
                if condition(element) { return element }
            case .deadline(wait), .end:
                return nil
            case .deadline:
                continue
            }
        }
        return nil
    }

    /// Cancels the iterating task and waits for it to end.
    consuming func stop() async {
        task.cancel()
        await task.value
    }
}

/// Runs an executable of the package to its end on a thread of its own, off the cooperative pool.
func runChild(_ name: String, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try ChildProcess.run(name, arguments) })
        }.start()
    }
}

/// Runs the ChangeWriter child to its end and expects it to succeed.
func change(_ arguments: String...) async throws {
    let result = try await runChild("ChangeWriter", arguments)
    guard result.status == 0 else {
        throw ChildFailure(description: "ChangeWriter \(arguments.joined(separator: " ")): \(result.errors)")
    }
}

struct ChildFailure: Error, CustomStringConvertible {
    var description: String
}

/// What this process holds of the watching machinery: its inotify descriptors and its watch threads.
enum WatchResources {
    /// Whether this system has inotify and a /proc to count in.
    static var countable: Bool {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }

    /// The open descriptors of this process that are inotify instances.
    static var inotifyDescriptors: Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
            return target == "anon_inode:inotify"
        }.count
    }

    /// The threads of this process that carry the watch thread's name.
    static var watchThreads: Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.trimmingCharacters(in: .whitespacesAndNewlines) == "persistible-wat"
        }.count
    }

    /// Waits until both counts are `descriptors` and `threads`, for at most `timeout`; returns whether they are.
    static func settle(descriptors: Int, threads: Int, within timeout: Duration = .seconds(2)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if inotifyDescriptors == descriptors && watchThreads == threads { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return inotifyDescriptors == descriptors && watchThreads == threads
    }
}
