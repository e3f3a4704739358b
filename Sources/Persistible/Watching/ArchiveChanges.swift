import Foundation

/// What a type's file holds, now and after every change by any process: the sequence ``Persistible/changes()``
/// returns.
///
/// The first element is what the file holds when iteration starts; then one follows each change that leaves the
/// file holding something else. Changes are coalesced, so a slow consumer never falls behind, and the sequence ends,
/// releasing everything its watch held, when the iterating task is cancelled or the loop is left. <doc:Watching>
/// says what is seen, how changes are noticed and coalesced, and when.
///
/// **An `ArchiveChanges` can be shared between tasks**; each iteration watches on its own, and reads in its task
/// through the same cache and decoder as ``Persistible/load()``.
public struct ArchiveChanges<Value: Codable & Hashable>: AsyncSequence, Sendable {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    public typealias Element = ArchiveChange<Value>

    /// The file, or the error that its type's invalid file name makes every read throw.
    let archive: Result<Archive<Value>, PersistenceError>
    let path: String
    let detection: ChangeDetection
    let coalescingInterval: Duration

    /// Starts watching: the iterator's first ``AsyncIterator/next()`` yields the file's current state.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(loop: loop { $0 })
    }

    /// The loop of this sequence, or of a store's over the same file, which makes its elements with `element`.
    func loop<Output>(_ element: @escaping (ArchiveChange<Value>) -> Output) -> ChangeLoop<Output> {
        let archive = archive
        return ChangeLoop(source: FileWatch(path: path, detection: detection), coalescingInterval: coalescingInterval) {
            let (change, version) = Archive.change(of: archive)
            return (element(change), version)
        }
    }

    /// Yields what the file holds, once at first and then after each change.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var loop: ChangeLoop<Element>

        /// What the file holds now, first, then after each change; `nil` once the task is cancelled.
        public mutating func next() async -> ArchiveChange<Value>? {
            await loop.next(isolation: nil)
        }

        /// The same as ``next()``, run in `actor`'s isolation.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ArchiveChange<Value>? {
            await loop.next(isolation: actor)
        }
    }
}

// MARK: - Watch

extension Persistible where Self: Codable & Hashable {
    /// What the file holds, now and after every change made to it by any process, noticed by the platform's events.
    ///
    /// ```swift
    /// for await change in Settings.changes() {
    ///     if case .contents(.single(let settings)) = change { apply(settings) }
    /// }
    /// ```
    ///
    /// ``archiveUrl`` is read once, when this is called: call it inside ``withArchiveDirectory(_:operation:)`` to
    /// watch a file there. ``ArchiveChanges`` says what is seen and when.
    ///
    /// - Returns: The sequence of the file's states.
    public static func changes() -> ArchiveChanges<Self> {
        changes(detection: .events)
    }

    /// What the file holds, now and after every change, noticed as `detection` says.
    ///
    /// - Parameters:
    ///   - detection: Events, or polling at an interval, for a file system that raises no events.
    ///   - coalescingInterval: The least time between two reads of a file that keeps changing; it cannot be
    ///     negative.
    /// - Returns: The sequence of the file's states.
    public static func changes(
        detection: ChangeDetection,
        coalescingInterval: Duration = ChangeDetection.defaultCoalescingInterval
    ) -> ArchiveChanges<Self> {
        precondition(coalescingInterval >= .zero, "a coalescing interval cannot be negative")
        return ArchiveChanges(
            archive: Result { () throws(PersistenceError) in try archive() }, path: archiveUrl.path,
            detection: detection, coalescingInterval: coalescingInterval
        )
    }

    /// What the file holds now, as a change sequence's element.
    static func currentChange() -> ArchiveChange<Self> {
        Archive.change(of: Result { () throws(PersistenceError) in try archive() }).0
    }
}
