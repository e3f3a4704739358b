/// A store's records, now and after every change, as ``FileStore/changes()`` and ``MemoryStore/changes()`` return.
///
/// Each element is the records in stored order, or the ``PersistenceError`` that reading them throws now; otherwise
/// it follows the rules of ``ArchiveChanges`` (<doc:Watching>).
///
/// **A `StoreChanges` can be shared between tasks when its records are `Sendable`.**
public struct StoreChanges<Object: Codable & Hashable>: AsyncSequence {
    public typealias Element = Result<[Object], PersistenceError>

    enum Origin {
        case file(ArchiveChanges<Object>)
        case memory(MemoryStore<Object>)
    }

    let origin: Origin

    /// Starts watching: the iterator's first ``AsyncIterator/next()`` yields the records as they are now.
    public func makeAsyncIterator() -> AsyncIterator {
        switch origin {
        case .file(let changes):
            return AsyncIterator(loop: changes.loop { change in
                Result { () throws(PersistenceError) in try change.values() }
            })
        case .memory(let store):
            let signal = ChangeSignal(observers: store.observers)
            return AsyncIterator(loop: ChangeLoop(source: signal, coalescingInterval: .zero) {
                store.state.withLock { (.success($0.records), .written($0.version)) }
            })
        }
    }

    /// Yields the records, once at first and then after each change.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var loop: ChangeLoop<Element>

        /// The records now, first, then after each change; `nil` once the task is cancelled.
        public mutating func next() async -> Result<[Object], PersistenceError>? {
            await loop.next(isolation: nil)
        }

        /// The same as ``next()``, run in `actor`'s isolation.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Result<[Object], PersistenceError>? {
            await loop.next(isolation: actor)
        }
    }
}

extension StoreChanges: Sendable where Object: Sendable {}

extension StoreChanges.Origin: Sendable where Object: Sendable {}

// MARK: - Watch

extension FileStore {
    /// The records, now and after every change made to the file by any process, noticed by the platform's events.
    public func changes() -> StoreChanges<Object> {
        changes(detection: .events)
    }

    /// The records, now and after every change, noticed as `detection` says.
    ///
    /// - Parameters:
    ///   - detection: Events, or polling at an interval, for a file system that raises no events.
    ///   - coalescingInterval: The least time between two reads of a file that keeps changing; not negative.
    public func changes(
        detection: ChangeDetection,
        coalescingInterval: Duration = ChangeDetection.defaultCoalescingInterval
    ) -> StoreChanges<Object> {
        precondition(coalescingInterval >= .zero, "a coalescing interval cannot be negative")
        let file = ArchiveChanges(store: self, detection: detection, coalescingInterval: coalescingInterval)
        return StoreChanges(origin: .file(file))
    }
}

extension MemoryStore where Object: Codable {
    /// The records, now and after every write to this store that changes them, each seen, not coalesced.
    public func changes() -> StoreChanges<Object> {
        StoreChanges(origin: .memory(self))
    }
}
