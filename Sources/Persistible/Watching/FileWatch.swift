#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Wakes a file's change sequence when the file at `path` may have changed, by the platform's events or by polling.
final class FileWatch: ChangeSource {
    let path: String
    private let signal = ChangeSignal()
    private let state: Locked<State>

    private struct State: Sendable {
        var events: FileEvents?
        var targets: [WatchTarget] = []
        /// Set when polling: how often.
        var interval: Duration?
        /// What polling saw before the last read.
        var statuses: [EntryStatus?] = []
    }

    init(path: String, detection: ChangeDetection) {
        self.path = path
        state = Locked(State(interval: detection.pollingInterval))
    }

    deinit {
        close()
    }

    func start() {
        guard state.withLock({ $0.interval == nil }) else { return }
        let events = FileEvents(notify: signal.notify)
        state.withLock { state in
            state.events = events
            if events == nil { state.interval = ChangeDetection.defaultPollingInterval }
        }
    }

    func waitForChange() async -> Bool {
        guard let interval = state.withLock({ $0.interval }) else { return await signal.waitForChange() }
        while true {
            guard (try? await Task.sleep(for: interval)) != nil else { return false }
            let now = statuses()
            if state.withLock({ $0.statuses != now }) { return true }
        }
    }

    func prepareRead() {
        signal.prepareRead()
        renew()
        guard state.withLock({ $0.interval != nil }) else { return }
        let statuses = statuses()
        state.withLock { $0.statuses = statuses }
    }

    func close() {
        state.withLock { $0.events.take() }?.cancel()
    }

    /// Watches the entries the path now leads through, if they changed or a watch was lost; polls instead if the
    /// platform refuses, as Linux does once the user's inotify watches are used up. The path is resolved again after
    /// each new watch: an entry changed between resolving and watching raised its event before the watch existed.
    private func renew() {
        let watched = state.withLock { state in state.events.map { ($0, state.targets) } }
        guard let (events, watchedTargets) = watched else { return }
        // A lost watch is renewed even where the path leads through the same entries: a chain is never empty.
        var targets = events.needsRenewal ? [] : watchedTargets
        for _ in 0..<16 {
            let current = WatchTarget.chain(for: path)
            guard current != targets else { return }
            guard events.watch(current) else {
                close()
                state.withLock { $0.interval = ChangeDetection.defaultPollingInterval }
                return
            }
            targets = current
            state.withLock { $0.targets = current }
        }
        // The path keeps changing under the watch: look again at the next wait rather than spin here.
        signal.notify()
    }

    private func statuses() -> [EntryStatus?] {
        WatchTarget.chain(for: path).map { EntryStatus(atPath: $0.path, following: false) }
            + [EntryStatus(atPath: path, following: true)]
    }
}

extension WatchTarget {
    /// The entries that decide what `path` holds: its own, and for a symbolic link the entry it points to, and so on
    /// to the file. Where a directory is missing, the entry of its first missing part in the nearest directory that
    /// exists stands in, so that its creation is seen.
    static func chain(for path: String) -> [WatchTarget] {
        var chain: [WatchTarget] = []
        var current = path
        // The same bound on links as the system's.
        for _ in 0..<40 {
            let directory = Path.directory(of: current)
            var target = WatchTarget(directory: directory, name: Path.name(of: current))
            while FileSystem.status(target.directory)?.isDirectory != true {
                let parent = Path.directory(of: target.directory)
                guard parent != target.directory else { break }
                target = WatchTarget(directory: parent, name: Path.name(of: target.directory))
            }
            chain.append(target)
            guard target.directory == directory, let destination = try? FileSystem.linkTarget(current),
                !destination.isEmpty
            else { break }
            // A relative destination's `..` is left to the system, which reads it from where a linked directory leads.
            current = destination.hasPrefix("/") ? destination : Path.appending(destination, to: directory)
        }
        return chain
    }
}
