import Foundation

/// What a type's file holds, now and after every change by any process: the sequence ``Persistible/changes()``
/// returns.
///
/// The first element is what the file holds when iteration starts. After that, an element follows each change:
/// a save or delete by this process or another, a ``FileStore`` write, a file moved away or into place, an editor
/// that rewrites the file in place or writes a new one and renames it over it, and a symbolic link at
/// ``Persistible/archiveUrl`` pointed at another file. An event that leaves the file as it was yields nothing.
///
/// Changes are coalesced, and nothing is queued: a consumer that is slower than the writers receives, each time it
/// asks, the state the file is in then, never a backlog. While the consumer waits, a file that keeps changing is
/// read at most once per coalescing interval (``ChangeDetection/defaultCoalescingInterval``, 20 ms), so a state that
/// stays on disk for longer than that is always yielded.
///
/// The sequence ends when the task iterating it is cancelled, or when the loop is left; either releases every
/// descriptor the watch held, and the process's watch thread if no other watch uses it.
///
/// ```swift
/// let watcher = Task {
///     for await change in Person.changes() {
///         print(try change.values().map(\.name))
///     }
/// }
/// // …
/// watcher.cancel()
/// ```
///
/// **An `ArchiveChanges` can be shared between tasks**; each iteration watches on its own. Reading happens in the
/// iterating task, through the same cache and decoder as ``Persistible/load()``.
public struct ArchiveChanges<Value: Codable & Hashable>: AsyncSequence, Sendable {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    public typealias Element = ArchiveChange<Value>

    private let path: String
    private let detection: ChangeDetection
    private let coalescingInterval: Duration
    /// The file, or the error that its type's invalid file name makes every read throw.
    private let archive: Result<Archive<Value>, PersistenceError>

    init(
        archive: Result<Archive<Value>, PersistenceError>,
        path: String,
        detection: ChangeDetection,
        coalescingInterval: Duration
    ) {
        self.archive = archive
        self.path = path
        self.detection = detection
        self.coalescingInterval = coalescingInterval
    }

    /// Starts watching: the iterator's first ``AsyncIterator/next()`` yields the file's current state.
    public func makeAsyncIterator() -> AsyncIterator {
        let archive = archive
        return AsyncIterator(loop: ChangeLoop(
            source: FileWatch(path: path, detection: detection), coalescingInterval: coalescingInterval
        ) {
            switch archive {
            case .success(let archive): return archive.change()
            case .failure(let error): return (.failure(error), .failed(error, nil))
            }
        })
    }

    /// Yields what the file holds, once at first and then after each change.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var loop: ChangeLoop<ArchiveChange<Value>, WatchedVersion>

        /// What the file holds now, first; after that, what it holds after the next change.
        ///
        /// - Returns: The next element, or `nil` once the task is cancelled.
        public mutating func next() async -> ArchiveChange<Value>? {
            await loop.next(isolation: nil)
        }

        /// What the file holds now, first; after that, what it holds after the next change; read in `actor`'s
        /// isolation.
        ///
        /// - Parameter actor: The actor the iteration runs on.
        /// - Returns: The next element, or `nil` once the task is cancelled.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ArchiveChange<Value>? {
            await loop.next(isolation: actor)
        }
    }
}

// MARK: - Watch

extension Persistible where Self: Codable & Hashable {
    /// What the file holds, now and after every change made to it by any process.
    ///
    /// The first element is the current state; then one follows each change, coalesced so that a consumer never
    /// falls behind. It watches with the platform's events, and ends when the iterating task is cancelled.
    /// ``ArchiveChanges`` says exactly what is seen and when.
    ///
    /// ```swift
    /// for await change in Settings.changes() {
    ///     switch change {
    ///     case .contents(.single(let settings)): apply(settings)
    ///     case .contents(.array): print("Settings.json holds a list")
    ///     case .noFile: apply(.defaults)
    ///     case .failure(let error): print(error) // Keeps the settings it has, and goes on watching.
    ///     }
    /// }
    /// ```
    ///
    /// ``archiveUrl`` is read once, when this is called: call it inside ``withArchiveDirectory(_:operation:)`` to
    /// watch a file there.
    ///
    /// - Returns: The sequence of the file's states.
    public static func changes() -> ArchiveChanges<Self> {
        changes(detection: .events)
    }

    /// What the file holds, now and after every change, noticed as `detection` says.
    ///
    /// ```swift
    /// for await change in Settings.changes(detection: .polling(every: .seconds(5))) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - detection: Events, or polling at an interval, for a file system that raises no events.
    ///   - coalescingInterval: The least time between two reads of a file that keeps changing; the default is
    ///     ``ChangeDetection/defaultCoalescingInterval``.
    /// - Returns: The sequence of the file's states.
    public static func changes(
        detection: ChangeDetection,
        coalescingInterval: Duration = ChangeDetection.defaultCoalescingInterval
    ) -> ArchiveChanges<Self> {
        precondition(coalescingInterval >= .zero, "a coalescing interval cannot be negative")
        let archive = Result { () throws(PersistenceError) in try Self.archive() }
        return ArchiveChanges(
            archive: archive, path: archiveUrl.path, detection: detection, coalescingInterval: coalescingInterval
        )
    }
}
