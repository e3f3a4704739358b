/// What a type's file holds, now and after every change by any process, as ``Persistible/changes()`` returns it.
///
/// <doc:Watching> says what is seen, how changes are noticed and coalesced, and how a watch ends.
///
/// **An `ArchiveChanges` can be shared between tasks**; each iteration watches on its own.
public struct ArchiveChanges<Value: Codable & Hashable>: AsyncSequence, Sendable {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    public typealias Element = ArchiveChange<Value>

    let store: FileStore<Value>
    let detection: ChangeDetection
    let coalescingInterval: Duration

    /// Starts watching: the iterator's first ``AsyncIterator/next()`` yields the file's current state.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(loop: loop { $0 })
    }

    /// The loop of this sequence, or of a store's over the same file, which makes its elements with `element`.
    func loop<Output>(_ element: @escaping (ArchiveChange<Value>) -> Output) -> ChangeLoop<Output> {
        let watch = FileWatch(path: store.url.path, detection: detection)
        return ChangeLoop(source: watch, coalescingInterval: coalescingInterval) {
            let (change, version) = store.change()
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

// MARK: - Elements

/// An element of ``ArchiveChanges``: the file's contents after a change, no file, or the error a load would throw.
public enum ArchiveChange<Value> {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    /// The file holds these contents: what ``Persistible/load()`` returns now.
    case contents(PersistenceData<Value>)

    /// There is no file: nothing was saved yet, or it was deleted or moved away.
    case noFile

    /// The file cannot be read: `error` is what ``Persistible/load()`` throws now; the sequence goes on.
    case failure(PersistenceError)

    /// The values the file holds, in order: one for a single value, none for ``noFile``.
    ///
    /// - Throws: The ``PersistenceError`` of a ``failure(_:)``.
    public func values() throws(PersistenceError) -> [Value] {
        switch self {
        case .contents(let data): return data.values
        case .noFile: return []
        case .failure(let error): throw error
        }
    }
}

extension ArchiveChange: Equatable where Value: Equatable {}

extension ArchiveChange: Sendable where Value: Sendable {}

/// Which version of a file an element was read from, so that an event that changed nothing yields nothing.
enum WatchedVersion: Equatable, Sendable {
    case missing
    case file(FileIdentity)
    case failed(PersistenceError, FileIdentity?)
    /// A memory store after this many writes that changed it.
    case written(UInt64)
}

extension FileStore {
    /// What the file holds now, and the version it was read from.
    func change() -> (ArchiveChange<Object>, WatchedVersion) {
        // Taken before reading: if the file changes in between, the version is the older one, and the next read,
        // which the change wakes, yields the newer contents rather than taking them for the same.
        let before = try? FileSystem.status(archive.get().url.path).map(FileIdentity.init)
        do {
            guard let state = try archive.get().read() else { return (.noFile, .missing) }
            return (.contents(state.contents), .file(state.identity))
        } catch {
            return (.failure(error), .failed(error, before))
        }
    }
}

// MARK: - Watch

extension Persistible where Self: Codable & Hashable {
    /// What the file holds, now and after every change made to it by any process (see <doc:Watching>).
    ///
    /// ```swift
    /// for await change in Settings.changes() {
    ///     if case .contents(.single(let settings)) = change { apply(settings) }
    /// }
    /// ```
    public static func changes() -> ArchiveChanges<Self> {
        changes(detection: .events)
    }

    /// What the file holds, now and after every change, noticed as `detection` says.
    ///
    /// - Parameters:
    ///   - detection: Events, or polling at an interval, for a file system that raises no events.
    ///   - coalescingInterval: The least time between two reads of a file that keeps changing; not negative.
    public static func changes(
        detection: ChangeDetection,
        coalescingInterval: Duration = ChangeDetection.defaultCoalescingInterval
    ) -> ArchiveChanges<Self> {
        precondition(coalescingInterval >= .zero, "a coalescing interval cannot be negative")
        return ArchiveChanges(store: FileStore(), detection: detection, coalescingInterval: coalescingInterval)
    }
}

/// How a change sequence notices that a file changed (see <doc:Watching#How-changes-are-noticed>).
public struct ChangeDetection: Sendable, Hashable {
    /// How often to poll, or `nil` for events.
    let pollingInterval: Duration?

    /// The platform's file system events; where there are none, polling at ``defaultPollingInterval``.
    public static let events = ChangeDetection(pollingInterval: nil)

    /// Reads the file when its status, or that of a link leading to it, changed since the last poll.
    ///
    /// - Parameter interval: How often to look; it must be positive.
    public static func polling(every interval: Duration) -> ChangeDetection {
        precondition(interval > .zero, "a polling interval must be positive")
        return ChangeDetection(pollingInterval: interval)
    }

    /// How often ``events`` polls where it cannot have events: one second.
    public static let defaultPollingInterval: Duration = .seconds(1)

    /// The least time between two reads of a file that keeps changing: 20 milliseconds.
    public static let defaultCoalescingInterval: Duration = .milliseconds(20)
}
