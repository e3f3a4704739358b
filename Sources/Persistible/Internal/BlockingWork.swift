import Foundation

/// Runs work that may block, such as waiting for a file lock, on a thread outside Swift's cooperative pool.
///
/// The cooperative pool has one thread per core; a task that blocks one of them on a lock held by another process
/// stalls every task scheduled there. Dispatch's global queue adds threads as others block, so waiting there
/// costs a thread and nothing else.
enum BlockingWork {
    static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try work() })
            }
        }
    }
}
