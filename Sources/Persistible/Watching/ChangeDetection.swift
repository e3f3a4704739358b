import Foundation

/// How a change sequence notices that a file changed: by the platform's file system events, or by polling.
///
/// <doc:Watching#How-changes-are-noticed> says what each sees and costs, and when to choose polling.
public struct ChangeDetection: Sendable, Hashable {
    /// How often to poll, or `nil` for events.
    let pollingInterval: Duration?

    /// The platform's file system events: inotify on Linux, kqueue on Apple platforms; where there are none, or the
    /// system refuses another watch, the sequence polls at ``defaultPollingInterval``.
    public static let events = ChangeDetection(pollingInterval: nil)

    /// Polls the status of the file, and of the links that lead to it, every `interval`, and reads the file when it
    /// changed; a state that stays on disk for less than `interval` may be missed.
    ///
    /// - Parameter interval: How often to look; it must be positive.
    public static func polling(every interval: Duration) -> ChangeDetection {
        precondition(interval > .zero, "a polling interval must be positive")
        return ChangeDetection(pollingInterval: interval)
    }

    /// How often ``events`` polls where it cannot have events: one second.
    public static let defaultPollingInterval: Duration = .seconds(1)

    /// How long a change sequence waits at least between two reads of a file that keeps changing: 20 milliseconds
    /// (see <doc:Watching#Coalescing-a-consumer-never-falls-behind>).
    public static let defaultCoalescingInterval: Duration = .milliseconds(20)
}
