import Foundation

/// How a change sequence notices that a file changed: by the platform's file system events, or by polling.
///
/// <doc:Watching> says what each sees and costs.
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
    /// Where there are none, or the system refuses another watch, the sequence polls at ``defaultPollingInterval``.
    /// Events report only what the local kernel did, not another machine's changes to a network file system.
    public static let events = ChangeDetection(method: .events)

    /// Polls the file every `interval`: its device, inode, size, modification time, mode and change time, and those
    /// of the symbolic links that lead to it; it reads the file only when one of them changed.
    ///
    /// A state that stays on disk for less than `interval` may be missed.
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
    /// The first change after a quiet spell is read at once; the changes that follow within the interval are read
    /// together once it has passed. A state that stays on disk for longer is always yielded.
    public static let defaultCoalescingInterval: Duration = .milliseconds(20)
}
