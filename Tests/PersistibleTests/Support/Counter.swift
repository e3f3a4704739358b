import Foundation

/// A count that many tasks add to; `Atomic` would need macOS 15, and the package supports macOS 13.
final class Counter: @unchecked Sendable {
    // Every access holds `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }

    func reset() { lock.withLock { count = 0 } }

    var value: Int { lock.withLock { count } }
}
