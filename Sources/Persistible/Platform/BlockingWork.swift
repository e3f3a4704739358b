import Foundation

/// Runs work that may block, such as waiting for a file lock, on a thread of its own, outside Swift's cooperative
/// pool.
///
/// The cooperative pool has one thread per core; a task that blocks one of them on a lock held by another process
/// stalls every task scheduled there. Dispatch's global queues are no way out on Linux: they share their threads
/// with the pool and add new ones only after seconds (measured: a task waited six seconds behind eight blocked
/// saves). A new thread costs tens of microseconds, little beside a save.
enum BlockingWork {
    static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        // The thread inherits no task-local value: the system calls in use are carried over by hand.
        let system = SystemCalls.current
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try SystemCalls.$current.withValue(system, operation: work) })
            }
            thread.name = "Persistible blocking work"
            thread.start()
        }
    }
}
