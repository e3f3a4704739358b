import Foundation

#if canImport(Darwin)
import Darwin
#endif

/// One entry to watch: a name in a directory.
struct WatchTarget: Hashable, Sendable {
    var directory: String
    var name: String

    var path: String { (directory as NSString).appendingPathComponent(name) }
}

/// The platform's notifications of changes to named entries of directories: inotify on Linux, dispatch sources
/// (kqueue) on Apple platforms.
///
/// Directories rather than files are watched, because a save replaces the file: a watch on the file itself would
/// follow the old inode away after the first save. On Apple platforms, where a directory's events do not include
/// writes into its files, the file itself is watched as well, and watched anew after every event.
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

    /// Watches `targets` instead of what was watched before.
    ///
    /// - Returns: `false` if one of them could not be watched; what could be is watched.
    func watch(_ targets: [WatchTarget]) -> Bool {
        #if os(Linux)
        let notify = notify
        var subscriptions: [Inotify.Subscription] = []
        var complete = true
        for target in targets {
            let subscription = Inotify.shared.subscribe(
                directory: target.directory, name: target.name, notify: notify
            )
            if let subscription { subscriptions.append(subscription) } else { complete = false }
        }
        // The new subscriptions are made before the old are ended, so that the instance stays open between them.
        let old = state.withLock { state in
            defer { state.subscriptions = subscriptions }
            return state.subscriptions
        }
        for subscription in old { Inotify.shared.unsubscribe(subscription) }
        return complete
        #elseif canImport(Darwin)
        var sources: [any DispatchSourceFileSystemObject] = []
        var complete = true
        let queue = Self.queue
        let notify = notify
        let fired = state
        func source(_ path: String, _ mask: DispatchSource.FileSystemEvent) -> (any DispatchSourceFileSystemObject)? {
            let descriptor = open(path, O_EVTONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: descriptor, eventMask: mask, queue: queue
            )
            source.setEventHandler {
                fired.withLock { $0.fired = true }
                notify()
            }
            source.setCancelHandler { close(descriptor) }
            source.resume()
            return source
        }
        for target in targets {
            if let directory = source(target.directory, [.write, .delete, .rename]) {
                sources.append(directory)
            } else {
                complete = false
            }
        }
        // A file that is written in place changes no directory: its own events say so. It may not exist yet.
        if let last = targets.last, let file = source(last.path, [.write, .extend, .attrib, .delete, .rename, .link]) {
            sources.append(file)
        }
        let old = state.withLock { state in
            defer {
                state.sources = sources
                state.fired = false
            }
            return state.sources
        }
        for source in old { source.cancel() }
        return complete
        #else
        return false
        #endif
    }

    /// Whether what is watched must be watched again even if the targets are the same: on Linux when a watched
    /// directory was deleted or moved, on Apple platforms after any event, since the file may be a new one.
    var needsRenewal: Bool {
        #if os(Linux)
        let subscriptions = state.withLock { $0.subscriptions }
        return subscriptions.contains { Inotify.shared.isLost($0) }
        #elseif canImport(Darwin)
        return state.withLock { $0.fired }
        #else
        return false
        #endif
    }

    /// Stops watching and releases every descriptor.
    func cancel() {
        #if os(Linux)
        let old = state.withLock { state in
            defer { state.subscriptions = [] }
            return state.subscriptions
        }
        for subscription in old { Inotify.shared.unsubscribe(subscription) }
        #elseif canImport(Darwin)
        let old = state.withLock { state in
            defer { state.sources = [] }
            return state.sources
        }
        for source in old { source.cancel() }
        #endif
    }
}

extension FileEvents {
    fileprivate struct State {
        #if os(Linux)
        var subscriptions: [Inotify.Subscription] = []
        #elseif canImport(Darwin)
        var sources: [any DispatchSourceFileSystemObject] = []
        var fired = false
        #endif
    }

    #if canImport(Darwin)
    /// One serial queue for every watch's handlers, which only wake the consumer.
    private static let queue = DispatchQueue(label: "Persistible file events")
    #endif
}

#if os(Linux)
extension FileEvents.State: Sendable {}
#elseif canImport(Darwin)
// The sources are reached only under FileEvents' lock, and a dispatch source may be cancelled from any thread.
extension FileEvents.State: @unchecked Sendable {}
#endif
