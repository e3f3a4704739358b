import Foundation

/// A value that many threads share, reached only while holding its lock.
final class Locked<State> {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

// The lock serializes every access to `state`, which never escapes `withLock` by reference.
extension Locked: @unchecked Sendable where State: Sendable {}
