#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

struct WatchTarget: Hashable, Sendable {
    var directory: String
    var name: String

    var path: String { Path.appending(name, to: directory) }
}

/// Notifications of changes to named entries of directories, as a save replaces a file and its inode: inotify on
/// Linux, dispatch sources (kqueue) on Apple platforms, which also watch the last target's file.
final class FileEvents: Sendable {
    private let notify: @Sendable () -> Void
    private let state = Locked(State())

    /// Events for a watch that calls `notify`; `nil` where the platform offers none.
    init?(notify: @escaping @Sendable () -> Void) {
        #if os(Linux) || canImport(Darwin)
        self.notify = notify
        #else
        return nil
        #endif
    }

    deinit {
        cancel()
    }

    /// Watches `targets` instead of what was watched before; `false` if one of them could not be watched.
    func watch(_ targets: [WatchTarget]) -> Bool {
        #if os(Linux)
        var subscriptions = targets.compactMap {
            Inotify.shared.subscribe(directory: $0.directory, name: $0.name, notify: notify)
        }
        let complete = subscriptions.count == targets.count
        // The new subscriptions are made before the old are ended, so that the instance stays open between them.
        state.withLock { swap(&$0.subscriptions, &subscriptions) }
        for old in subscriptions { Inotify.shared.unsubscribe(old) }
        return complete
        #elseif canImport(Darwin)
        // Cleared before the new sources start, so that an event they report is never cleared with the old ones'.
        state.withLock { $0.fired = false }
        let notify = notify
        let fired = state
        func source(_ path: String, _ mask: DispatchSource.FileSystemEvent) -> (any DispatchSourceFileSystemObject)? {
            // Without O_NONBLOCK, opening a FIFO at the path would wait for a writer.
            let descriptor = open(path, O_EVTONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return nil }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: descriptor, eventMask: mask, queue: eventQueue
            )
            source.setEventHandler {
                fired.withLock { $0.fired = true }
                notify()
            }
            source.setCancelHandler { close(descriptor) }
            source.resume()
            return source
        }
        var sources = targets.compactMap { source($0.directory, [.write, .delete, .rename]) }
        let complete = sources.count == targets.count
        // A file that is written in place changes no directory: its own events say so. It may not exist yet.
        if let last = targets.last, let file = source(last.path, [.write, .extend, .attrib, .delete, .rename, .link]) {
            sources.append(file)
        }
        state.withLock { swap(&$0.sources, &sources) }
        for old in sources { old.cancel() }
        return complete
        #else
        return false
        #endif
    }

    /// Whether the same targets must be watched anew: on Linux once a directory went, on Apple platforms after any
    /// event, since the file may be a new one.
    var needsRenewal: Bool {
        #if os(Linux)
        return state.withLock { $0.subscriptions }.contains { Inotify.shared.isLost($0) }
        #elseif canImport(Darwin)
        return state.withLock { $0.fired }
        #else
        return false
        #endif
    }

    func cancel() {
        _ = watch([])
    }

    fileprivate struct State {
        #if os(Linux)
        var subscriptions: [Inotify.Subscription] = []
        #elseif canImport(Darwin)
        var sources: [any DispatchSourceFileSystemObject] = []
        var fired = false
        #endif
    }
}

#if canImport(Darwin)
// The sources are reached only under FileEvents' lock, and a dispatch source may be cancelled from any thread.
extension FileEvents.State: @unchecked Sendable {}

/// One serial queue for every watch's handlers, which only wake the consumer.
private let eventQueue = DispatchQueue(label: "Persistible file events")
#endif

// MARK: - inotify

#if os(Linux)
/// The process's one inotify instance (a user may open only 128) and the one thread that reads it, shared by every
/// watch of a name in a directory; both exist only while a subscription does, and an idle watch wakes nothing.
private final class Inotify: Sendable {
    static let shared = Inotify()

    typealias Subscription = UInt64

    private typealias Subscriber = (name: String, notify: @Sendable () -> Void)

    private struct State {
        var descriptor: Int32 = -1
        /// By watch descriptor; the kernel gives one directory the same one however often it is added.
        var directories: [Int32: [Subscription: Subscriber]] = [:]
        /// Subscriptions whose directory was deleted or moved: their watch is gone and they must subscribe again.
        var lost: Set<Subscription> = []
        var next: Subscription = 0
    }

    private let state = Locked(State())

    /// A file written in place is read once it is closed (`IN_CLOSE_WRITE`), whole, not at each write.
    private static let mask = UInt32(
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF
    ) | UInt32(IN_ONLYDIR)

    /// Calls `notify` on the reader thread after each event about `name` in `directory`; `nil` if inotify refuses.
    func subscribe(directory: String, name: String, notify: @escaping @Sendable () -> Void) -> Subscription? {
        state.withLock { state -> Subscription? in
            let starting = state.descriptor < 0
            let descriptor = starting ? inotify_init1(Int32(IN_CLOEXEC)) : state.descriptor
            let watch = inotify_add_watch(descriptor, directory, Self.mask)
            guard watch >= 0 else {
                if starting, descriptor >= 0 { close(descriptor) }
                return nil
            }
            if starting {
                // The reader starts after the first watch, so that the event for the last one's removal wakes it to
                // end; and it names itself first, so that whoever looks at the process's threads can tell it at once:
                // it then writes a byte into a pipe, which ends the read here. (Not a semaphore: Dispatch's Swift
                // library alone cost every command-line call 0.13 ms to load.)
                var ends: [Int32] = [-1, -1]
                let waits = pipe(&ends) == 0
                let (readEnd, writeEnd) = (ends[0], ends[1])
                for end in ends where waits { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                do {
                    try PlatformThread.start {
                        Self.nameCurrentThread()
                        var byte: UInt8 = 1
                        if waits { _ = write(writeEnd, &byte, 1) }
                        Inotify.shared.readEvents(descriptor: descriptor)
                    }
                } catch {
                    // Without a reader there are no events: as where inotify refuses.
                    for end in ends where waits { close(end) }
                    close(descriptor)
                    return nil
                }
                state.descriptor = descriptor
                var byte: UInt8 = 0
                while waits, read(readEnd, &byte, 1) < 0, errno == EINTR {}
                for end in ends where waits { close(end) }
            }
            state.next += 1
            let subscription = state.next
            state.directories[watch, default: [:]][subscription] = (name, notify)
            return subscription
        }
    }

    func isLost(_ subscription: Subscription) -> Bool { state.withLock { $0.lost.contains(subscription) } }

    /// Stops a subscription; the last one closes the instance and ends the thread.
    func unsubscribe(_ subscription: Subscription) {
        state.withLock { state in
            state.lost.remove(subscription)
            guard let watch = state.directories.first(where: { $0.value[subscription] != nil })?.key else { return }
            state.directories[watch]?[subscription] = nil
            if state.directories[watch]?.isEmpty == true {
                state.directories[watch] = nil
                // The kernel answers with an event, which wakes the thread to end if this was the last watch.
                inotify_rm_watch(state.descriptor, watch)
            }
        }
    }

    private func readEvents(descriptor: Int32) {
        // Room for many events at once; the kernel never splits one.
        var buffer = [UInt8](repeating: 0, count: 64 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1))
        while true {
            let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if length < 0, errno != EINTR { return }
            let chosen = buffer.withUnsafeBytes { deliver(UnsafeRawBufferPointer(rebasing: $0.prefix(max(length, 0)))) }
            for notify in chosen { notify() }
            let finished = state.withLock { state -> Bool in
                guard state.directories.isEmpty, state.descriptor == descriptor else { return false }
                close(descriptor)
                state.descriptor = -1
                return true
            }
            if finished { return }
        }
    }

    /// Names the thread in the kernel, where neither `Thread.name` nor the unimported `pthread_setname_np` reach.
    private static func nameCurrentThread() {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = "persistible-wat".withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }

    /// The subscribers to tell about the events in `events`, each once.
    private func deliver(_ events: UnsafeRawBufferPointer) -> [@Sendable () -> Void] {
        let header = MemoryLayout<inotify_event>.size
        return state.withLock { state in
            var chosen: [Subscription: @Sendable () -> Void] = [:]
            var offset = 0
            while offset + header <= events.count {
                let event = events.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameBytes = events[(offset + header)..<min(offset + header + Int(event.len), events.count)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += header + Int(event.len)

                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were dropped: anything may have changed.
                    for (id, subscriber) in state.directories.values.joined() { chosen[id] = subscriber.notify }
                    continue
                }
                guard let directory = state.directories[event.wd] else { continue }
                let ended = event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0
                for (id, subscriber) in directory where ended || subscriber.name == name {
                    chosen[id] = subscriber.notify
                }
                if ended {
                    // The watch now follows a directory that is no longer at its path, or is gone already.
                    state.lost.formUnion(directory.keys)
                    state.directories[event.wd] = nil
                    if event.mask & UInt32(IN_IGNORED) == 0 { inotify_rm_watch(state.descriptor, event.wd) }
                }
            }
            return Array(chosen.values)
        }
    }
}
#endif
