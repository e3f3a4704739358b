import Foundation

/// How a change sequence notices that a file changed: by the platform's file system events, or by polling.
///
/// ```swift
/// // A file on a network file system, whose changes by other machines raise no events here:
/// for await change in Settings.changes(detection: .polling(every: .seconds(2))) { … }
/// ```
public struct ChangeDetection: Sendable, Hashable {
    enum Method: Hashable, Sendable {
        case events
        case polling(Duration)
    }

    let method: Method

    /// The platform's file system events: inotify on Linux, kqueue on Apple platforms.
    ///
    /// A change is seen within a millisecond or so, and a watch that sees no change costs nothing: no thread wakes
    /// up. Where the platform has no such events, or refuses another watch (as Linux does once a user has used up
    /// `fs.inotify.max_user_watches`), the sequence polls at ``defaultPollingInterval`` instead.
    ///
    /// Events report only what the local kernel did: a change made by another machine to a file on a network file
    /// system raises none. Use ``polling(every:)`` for such files.
    public static let events = ChangeDetection(method: .events)

    /// Polls the file every `interval`: its device, inode, size, modification time, mode and change time, and those
    /// of the symbolic links that lead to it. Nothing is read until one of them changes.
    ///
    /// Polling sees every change on every file system, at the cost of a few `stat` calls per interval and a
    /// latency of up to `interval`. A state that stays on disk for less than `interval` may be missed.
    ///
    /// - Parameter interval: How often to look; it must be positive.
    public static func polling(every interval: Duration) -> ChangeDetection {
        precondition(interval > .zero, "a polling interval must be positive")
        return ChangeDetection(method: .polling(interval))
    }

    /// How often ``events`` polls where it cannot have events: one second.
    public static let defaultPollingInterval: Duration = .seconds(1)

    /// How long a change sequence waits at least between two reads of a file that keeps changing: 20 milliseconds.
    ///
    /// The first change after a quiet spell is read at once. Changes that follow within the interval are read
    /// together once it has passed, so a burst of a thousand saves costs a few dozen reads, and the consumer sees
    /// the state the burst ends in. A state that stays on disk for longer than the interval is always read, as
    /// long as the consumer is waiting for the next element.
    public static let defaultCoalescingInterval: Duration = .milliseconds(20)
}
