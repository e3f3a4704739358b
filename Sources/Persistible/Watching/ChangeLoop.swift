import Foundation

/// What tells a change sequence that it may have something new to read.
protocol ChangeSource: AnyObject, Sendable {
    /// Begins watching; called once, before the first read.
    func start()
    /// Returns `true` once something may have changed, `false` when the task is cancelled.
    func waitForChange() async -> Bool
    /// Called just before each read: a change from now on wakes the next wait.
    func prepareRead()
    /// Stops watching and releases what the watch holds; called once the sequence ends.
    func close()
}

/// The loop every change sequence runs: wait, read, and yield what was read if it differs from what was yielded.
///
/// Nothing is queued. However many changes happen between two calls to `next`, the second reads once and yields
/// the latest state, so a slow consumer costs no memory and never falls behind.
struct ChangeLoop<Element, Version: Equatable> {
    let source: any ChangeSource
    /// Reads what the file or store holds now, and the version it came from.
    let read: () -> (Element, Version)
    let coalescingInterval: Duration
    private var last: Version?
    private var lastRead: ContinuousClock.Instant?
    private var finished = false

    init(source: any ChangeSource, coalescingInterval: Duration, read: @escaping () -> (Element, Version)) {
        self.source = source
        self.coalescingInterval = coalescingInterval
        self.read = read
    }

    mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
        guard !finished else { return nil }
        guard !Task.isCancelled else { return finish() }
        guard let previous = lastRead else {
            // Watching starts before the first read, so that no change after that read goes unseen.
            source.start()
            return readNow().element
        }
        var readAt = previous
        while true {
            guard await source.waitForChange() else { return finish() }
            // A burst is read at most once per interval; the first change after a quiet spell is read at once.
            let earliest = readAt + coalescingInterval
            if ContinuousClock.now < earliest {
                do {
                    try await Task.sleep(until: earliest, clock: .continuous)
                } catch {
                    return finish()
                }
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
