import Foundation

/// The watch behind a file's change sequence: it wakes the consumer when the file at `path` may have changed,
/// by the platform's events or by polling.
final class FileWatch: ChangeSource {
    let path: String
    private let detection: ChangeDetection
    private let signal = ChangeSignal()
    private let state = Locked(State())

    private struct State: Sendable {
        var events: FileEvents?
        var targets: [WatchTarget] = []
        /// What polling saw before the last read.
        var snapshot: [EntryStatus?] = []
        var interval: Duration?
    }

    init(path: String, detection: ChangeDetection) {
        self.path = path
        self.detection = detection
    }

    deinit {
        close()
    }

    func start() {
        switch detection.method {
        case .polling(let interval):
            state.withLock { $0.interval = interval }
        case .events:
            let signal = signal
            guard let events = FileEvents(notify: { signal.notify() }) else {
                state.withLock { $0.interval = ChangeDetection.defaultPollingInterval }
                return
            }
            state.withLock { $0.events = events }
            renew()
        }
    }

    func waitForChange() async -> Bool {
        if let interval = state.withLock({ $0.interval }) {
            while true {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return false
                }
                let now = Self.snapshot(of: WatchTarget.chain(for: path), path: path)
                if state.withLock({ $0.snapshot != now }) { return true }
            }
        }
        await signal.wait()
        return !Task.isCancelled
    }

    func prepareRead() {
        signal.clear()
        if state.withLock({ $0.interval != nil }) {
            let snapshot = Self.snapshot(of: WatchTarget.chain(for: path), path: path)
            state.withLock { $0.snapshot = snapshot }
        } else {
            renew()
        }
    }

    func close() {
        let events = state.withLock { state in
            defer { state.events = nil }
            return state.events
        }
        events?.cancel()
    }

    /// Watches the entries the path now leads through, if they changed or a watch was lost; falls back to polling
    /// if the platform refuses, as it does when the process has used up its inotify watches.
    ///
    /// The path is resolved again after each new watch: an entry that changed between resolving and watching (a
    /// directory made, a link pointed elsewhere) raised its event before the watch existed, and only resolving
    /// again finds it.
    private func renew() {
        let watched = state.withLock { state in state.events.map { ($0, state.targets) } }
        guard let (events, watchedTargets) = watched else { return }
        var targets = watchedTargets
        var current = WatchTarget.chain(for: path)
        var lost = events.needsRenewal
        for _ in 0..<16 {
            guard current != targets || lost else { return }
            guard events.watch(current) else {
                fallBackToPolling(events, current)
                return
            }
            targets = current
            lost = false
            state.withLock { $0.targets = current }
            current = WatchTarget.chain(for: path)
        }
        // The path keeps changing under the watch: look again at the next wait rather than spin here.
        signal.notify()
    }

    private func fallBackToPolling(_ events: FileEvents, _ targets: [WatchTarget]) {
        events.cancel()
        let snapshot = Self.snapshot(of: targets, path: path)
        state.withLock { state in
            state.events = nil
            state.interval = ChangeDetection.defaultPollingInterval
            state.snapshot = snapshot
        }
    }

    /// The status of each entry the path leads through, and of the file it leads to.
    private static func snapshot(of targets: [WatchTarget], path: String) -> [EntryStatus?] {
        targets.map { EntryStatus(atPath: $0.path, following: false) } + [EntryStatus(atPath: path, following: true)]
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
            let directory = (current as NSString).deletingLastPathComponent
            let target = existing(WatchTarget(directory: directory, name: (current as NSString).lastPathComponent))
            chain.append(target)
            guard target.directory == directory, let destination = symbolicLinkDestination(atPath: current) else {
                break
            }
            current = destination.hasPrefix("/")
                ? destination
                : ((directory as NSString).appendingPathComponent(destination) as NSString).standardizingPath
        }
        return chain
    }

    /// `target`, or the entry on the way to it in the nearest directory that exists.
    private static func existing(_ target: WatchTarget) -> WatchTarget {
        var target = target
        while !isDirectory(target.directory) {
            let parent = (target.directory as NSString).deletingLastPathComponent
            guard parent != target.directory else { break }
            target = WatchTarget(directory: parent, name: (target.directory as NSString).lastPathComponent)
        }
        return target
    }

    private static func isDirectory(_ path: String) -> Bool {
        FileSystem.status(path)?.isDirectory == true
    }

    private static func symbolicLinkDestination(atPath path: String) -> String? {
        (try? FileSystem.linkTarget(path)).flatMap { $0.isEmpty ? nil : $0 }
    }
}
