import Foundation

/// Wakes the one task that consumes a watch when its file may have changed.
///
/// Notifications that arrive while nobody waits are kept as one: the consumer then reads the file once, and sees
/// the latest state, however many changes there were. This is what bounds a watch's memory whatever the writers do.
final class ChangeSignal: Sendable {
    private struct State: Sendable {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Says that something may have changed; cheap, and safe to call from any thread.
    func notify() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Forgets earlier notifications, just before reading the file: a change after this call wakes the next wait.
    func clear() {
        state.withLock { $0.pending = false }
    }

    /// Returns once notified, at once if a notification is pending, or when the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
