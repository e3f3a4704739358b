#if os(Linux)
import Foundation
import Glibc

/// The process's one inotify instance and the one thread that reads it, shared by every watch.
///
/// A subscription asks for the events about one name in one directory. The instance and its thread exist only
/// while some subscription does: removing the last one closes the descriptor and ends the thread, so a process
/// that watches nothing holds neither. The thread sleeps in `read` until the kernel has an event, so an idle watch
/// costs no wake-ups.
final class Inotify: Sendable {
    static let shared = Inotify()

    /// The name the reader thread carries, so that it can be told from the process's other threads.
    static let threadName = "persistible-wat"

    typealias Subscription = UInt64

    private struct Subscriber {
        var name: String
        var notify: @Sendable () -> Void
    }

    private struct WatchedDirectory {
        var subscribers: [Subscription: Subscriber] = [:]
    }

    private struct State {
        var descriptor: Int32 = -1
        /// By watch descriptor; the kernel gives one directory the same one however often it is added.
        var directories: [Int32: WatchedDirectory] = [:]
        var directoryOf: [Subscription: Int32] = [:]
        /// Subscriptions whose directory was deleted or moved: their watch is gone and they must subscribe again.
        var lost: Set<Subscription> = []
        var next: Subscription = 0
    }

    private let state = Locked(State())

    /// Entries created, deleted, renamed, written and closed, or changed in mode; and the directory's own end.
    /// Writes that are not yet closed are left out, so that a file being written in place is read once it is whole.
    private static let mask = UInt32(
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF
            | IN_MOVE_SELF
    ) | UInt32(IN_ONLYDIR)

    /// Calls `notify` on the reader thread after each event about `name` in `directory`.
    ///
    /// - Returns: The subscription, or `nil` if inotify refuses (no such directory, no more watches allowed).
    func subscribe(directory: String, name: String, notify: @escaping @Sendable () -> Void) -> Subscription? {
        state.withLock { state -> Subscription? in
            let watch: Int32
            if state.descriptor < 0 {
                guard let first = Self.start(&state, directory: directory) else { return nil }
                watch = first
            } else {
                watch = inotify_add_watch(state.descriptor, directory, Self.mask)
                guard watch >= 0 else { return nil }
            }
            state.next += 1
            let subscription = state.next
            state.directories[watch, default: WatchedDirectory()].subscribers[subscription] = Subscriber(
                name: name, notify: notify
            )
            state.directoryOf[subscription] = watch
            return subscription
        }
    }

    /// Whether the directory of `subscription` is no longer watched, because it was deleted or moved.
    func isLost(_ subscription: Subscription) -> Bool {
        state.withLock { $0.lost.contains(subscription) }
    }

    /// Stops a subscription; the last one closes the instance and ends the thread.
    func unsubscribe(_ subscription: Subscription) {
        state.withLock { state in
            state.lost.remove(subscription)
            guard let watch = state.directoryOf.removeValue(forKey: subscription) else { return }
            state.directories[watch]?.subscribers[subscription] = nil
            if state.directories[watch]?.subscribers.isEmpty == true {
                state.directories[watch] = nil
                // The kernel answers with an event, which wakes the thread to end if this was the last watch.
                inotify_rm_watch(state.descriptor, watch)
            }
        }
    }

    /// Opens the instance with its first watch and starts the reader thread; `nil` if inotify refuses.
    ///
    /// The thread starts only once a watch exists, so that it always has an event to wake it when the last watch
    /// is removed: the kernel reports every removal, by `inotify_rm_watch` or by the directory's end.
    private static func start(_ state: inout State, directory: String) -> Int32? {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let watch = inotify_add_watch(descriptor, directory, mask)
        guard watch >= 0 else {
            close(descriptor)
            return nil
        }
        state.descriptor = descriptor
        // Waits for the thread to name itself, so that whoever looks at the process's threads can tell it at once.
        let named = DispatchSemaphore(value: 0)
        Thread {
            nameCurrentThread()
            named.signal()
            Inotify.shared.readEvents(descriptor: descriptor)
        }.start()
        named.wait()
        return watch
    }

    /// The reader thread: waits for events, hands them out, and ends once nothing is watched.
    private func readEvents(descriptor: Int32) {
        // Room for many events at once; the kernel never splits one.
        let capacity = 64 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1)
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: capacity, alignment: MemoryLayout<inotify_event>.alignment
        )
        defer { buffer.deallocate() }
        while true {
            let length = read(descriptor, buffer, capacity)
            if length < 0, errno != EINTR { return }
            let notifications = length > 0 ? deliver(UnsafeRawBufferPointer(start: buffer, count: length)) : []
            for notify in notifications { notify() }
            let finished = state.withLock { state -> Bool in
                guard state.directories.isEmpty, state.descriptor == descriptor else { return false }
                close(descriptor)
                state.descriptor = -1
                return true
            }
            if finished { return }
        }
    }

    /// Names the calling thread in the kernel, where `Thread.name` does not reach on Linux and
    /// `pthread_setname_np` is not imported.
    private static func nameCurrentThread() {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = threadName.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }

    /// The subscribers to tell about the events in `events`, each once.
    private func deliver(_ events: UnsafeRawBufferPointer) -> [@Sendable () -> Void] {
        let header = MemoryLayout<inotify_event>.size
        return state.withLock { state in
            var chosen: [Subscription: @Sendable () -> Void] = [:]
            var offset = 0
            while offset + header <= events.count {
                let watch = events.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = events.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let nameLength = Int(events.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = events[(offset + header)..<min(offset + header + nameLength, events.count)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += header + nameLength

                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were dropped: anything may have changed.
                    for directory in state.directories.values {
                        for (id, subscriber) in directory.subscribers { chosen[id] = subscriber.notify }
                    }
                    continue
                }
                guard let directory = state.directories[watch] else { continue }
                let ended = mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0
                for (id, subscriber) in directory.subscribers where ended || subscriber.name == name {
                    chosen[id] = subscriber.notify
                }
                if ended {
                    // The watch now follows a directory that is no longer at its path, or is gone already.
                    for id in directory.subscribers.keys {
                        state.lost.insert(id)
                        state.directoryOf[id] = nil
                    }
                    state.directories[watch] = nil
                    if mask & UInt32(IN_IGNORED) == 0 { inotify_rm_watch(state.descriptor, watch) }
                }
            }
            return Array(chosen.values)
        }
    }
}
#endif
