#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A store in memory that behaves as a ``FileStore``: for tests, previews, and drafts made by ``Store/makeChild()``.
///
/// **A `MemoryStore` can be used from any thread** when its records are `Sendable`: each operation holds its lock.
public final class MemoryStore<Object: Hashable>: Store {
    let state: Locked<State>
    /// The change sequences iterating now, woken after each write.
    let observers = Locked<[ObjectIdentifier: @Sendable () -> Void]>([:])

    /// Creates an empty store.
    public init() {
        state = Locked(State(records: []))
    }

    /// Creates a store holding `records`, in order, as if inserted one after the other.
    public init(_ records: some Sequence<Object>) {
        state = Locked(State(records: WritePlan.inOrder(records, identity: RecordIdentity())))
    }

    /// `records` exactly as stored, repeated identities included, for a query; with `changes`, for a draft.
    init(asStored records: [Object], changes: Changes? = nil) {
        state = Locked(State(records: records, changes: changes))
    }

    public func readRecords<Result>(_ body: (StoreReader<Object>) throws -> Result) throws -> Result {
        try body(StoreReader(records: state.withLock { $0.records }))
    }

    public func writeRecords<Result>(_ body: (inout StoreWriter<Object>) throws -> Result) throws -> Result {
        let result = try state.withLock { state in
            var writer = StoreWriter(plan: WritePlan(records: state.records), location: URL(string: "memory:")!)
            let result = try body(&writer)
            if writer.plan.hasChanges {
                let identity = writer.plan.identity
                state.changes? += Self.changes(from: state.records, to: writer.plan.records, identity: identity)
                state.records = writer.plan.records
                state.version += 1
            }
            return result
        }
        for notify in observers.withLock({ Array($0.values) }) { notify() }
        return result
    }
}

extension MemoryStore {
    struct State {
        var records: [Object]
        var changes: Changes?
        /// Counts the writes that changed the records, so that a change sequence can tell a new state.
        var version: UInt64 = 0
    }

    /// The changes made to a draft, in the order they were made: each record inserted or changed, or deleted.
    typealias Changes = [(object: Object, isDeleted: Bool)]

    /// How `old` became `new`: each record inserted or changed, then each one deleted.
    static func changes(from old: [Object], to new: [Object], identity: RecordIdentity<Object>) -> Changes {
        var remaining = Dictionary(old.map { (identity.of($0), $0) }, uniquingKeysWith: { first, _ in first })
        var changes: Changes = []
        for object in new {
            if let previous = remaining.removeValue(forKey: identity.of(object)), previous == object { continue }
            changes.append((object, false))
        }
        return changes + old.filter { remaining[identity.of($0)] != nil }.map { ($0, true) }
    }
}

extension MemoryStore.State: Sendable where Object: Sendable {}

extension MemoryStore: Sendable where Object: Sendable {}

// MARK: - Child stores

extension Store {
    /// A draft: the records copied into memory, for ``Store/merge(_:)-5fk7r`` (<doc:StoresAndQueries#Drafts>).
    public func makeChild() throws -> MemoryStore<Object> {
        MemoryStore(asStored: try all(), changes: [])
    }

    /// Applies in one write the changes made to `child`, which ``makeChild()`` made, since it was made or merged.
    ///
    /// - Throws: ``PersistenceError`` if the store cannot be written; the draft then keeps its changes.
    public func merge(_ child: MemoryStore<Object>) throws {
        let taken = child.state.withLock { state in
            defer { if state.changes != nil { state.changes = [] } }
            return state.changes
        }
        guard let changes = taken else {
            preconditionFailure("merge(_:) takes a store made by makeChild()")
        }
        do {
            // In the order they were made, so that each change wins over what is there.
            try write { writer in
                for (object, isDeleted) in changes {
                    if isDeleted { writer.delete(object) } else { writer.insert(object) }
                }
            }
        } catch {
            // Put back before those made since, for another try.
            child.state.withLock { $0.changes = changes + ($0.changes ?? []) }
            throw error
        }
    }
}
