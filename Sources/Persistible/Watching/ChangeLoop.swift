/// What wakes a change sequence: a `FileWatch`, or for a memory store a `ChangeSignal` that the store's writes notify.
protocol ChangeSource: AnyObject, Sendable {
    /// Begins watching; called once, before the first read, so that no change after that read goes unseen.
    func start()
    /// Returns `true` once something may have changed, `false` when the task is cancelled.
    func waitForChange() async -> Bool
    /// Called just before each read: a change from now on wakes the next wait.
    func prepareRead()
    /// Releases what the watch holds; called once the sequence ends.
    func close()
}

/// The loop of every change sequence: wait, read, and yield what was read if its version differs from the last.
/// Nothing is queued, so a slow consumer costs no memory and never falls behind.
struct ChangeLoop<Element> {
    let source: any ChangeSource
    let coalescingInterval: Duration
    let read: () -> (Element, WatchedVersion)
    private var last: WatchedVersion?
    private var lastRead: ContinuousClock.Instant?
    private var finished = false

    init(source: any ChangeSource, coalescingInterval: Duration, read: @escaping () -> (Element, WatchedVersion)) {
        self.source = source
        self.coalescingInterval = coalescingInterval
        self.read = read
    }

    mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
        guard !finished else { return nil }
        guard !Task.isCancelled else { return finish() }
        guard var readAt = lastRead else {
            source.start()
            return readNow().element
        }
        while true {
            guard await source.waitForChange() else { return finish() }
            // A burst is read at most once per interval; the first change after a quiet spell is read at once.
            let earliest = readAt + coalescingInterval
            if ContinuousClock.now < earliest {
                guard (try? await Task.sleep(until: earliest, clock: .continuous)) != nil else { return finish() }
            }
            guard !Task.isCancelled else { return finish() }
            let (element, isNew) = readNow()
            if isNew { return element }
            readAt = lastRead ?? readAt
        }
    }

    private mutating func readNow() -> (element: Element, isNew: Bool) {
        source.prepareRead()
        let (element, version) = read()
        lastRead = ContinuousClock.now
        defer { last = version }
        return (element, version != last)
    }

    private mutating func finish() -> Element? {
        finished = true
        source.close()
        return nil
    }
}

/// Wakes the one task that consumes a watch. Notifications that arrive while nobody waits are kept as one, which
/// bounds a watch's memory whatever the writers do.
final class ChangeSignal: ChangeSource {
    private struct State: Sendable {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())
    /// For a memory store's sequence, the store's observers, which notify this signal from `start()` to `close()`.
    private let observers: Locked<[ObjectIdentifier: @Sendable () -> Void]>?

    init(observers: Locked<[ObjectIdentifier: @Sendable () -> Void]>? = nil) {
        self.observers = observers
    }

    deinit {
        close()
    }

    func start() {
        // Weakly, so that a sequence dropped without ending leaves the store when its signal goes.
        let notify: @Sendable () -> Void = { [weak self] in self?.notify() }
        observers?.withLock { $0[ObjectIdentifier(self)] = notify }
    }

    func close() {
        observers?.withLock { $0[ObjectIdentifier(self)] = nil }
    }

    /// Says that something may have changed; safe to call from any thread.
    func notify() {
        state.withLock { state in
            if state.waiter == nil { state.pending = true }
            return state.waiter.take()
        }?.resume()
    }

    func prepareRead() {
        state.withLock { $0.pending = false }
    }

    func waitForChange() async -> Bool {
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
            state.withLock { $0.waiter.take() }?.resume()
        }
        return !Task.isCancelled
    }
}
