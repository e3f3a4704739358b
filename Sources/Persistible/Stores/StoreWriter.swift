#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The records of a store inside a `write(_:)` block, and its changes (<doc:StoresAndQueries#Write-blocks>).
public struct StoreWriter<Object: Hashable> {
    var plan: WritePlan<Object>
    /// Where the records are kept, for errors: the file, or `memory:`.
    let location: URL
    /// How many stored records a ``DomainStore`` skipped as unconvertible and keeps; `synchronize(with:)` drops them.
    var unconvertible = 0

    // MARK: - Reading

    /// Every record, in stored order, including the block's changes so far.
    public func all() -> [Object] { plan.records }

    /// The stored record with the same identity as `object`, if any; the first of them, if several are stored.
    public func record(matching object: Object) -> Object? {
        let key = plan.identity.of(object)
        if let index = plan.index { return index[key].map { plan.records[$0] } }
        return plan.records.first { plan.identity.of($0) == key }
    }

    /// Whether a record with the same identity as `object` is stored.
    public func contains(_ object: Object) -> Bool {
        record(matching: object) != nil
    }

    /// A query over the records, including the block's changes so far.
    public func filter(where filter: StoreFilter<Object>) -> StoreQuery<MemoryStore<Object>> {
        MemoryStore(asStored: plan.records).filter(where: filter)
    }

    // MARK: - Changing

    /// Inserts `object`, replacing in place a stored record with the same identity.
    public mutating func insert(_ object: Object) {
        plan.insert(object)
    }

    /// Inserts each object in order, as ``insert(_:)`` does.
    public mutating func insert(contentsOf objects: some Sequence<Object>) {
        for object in objects { insert(object) }
    }

    /// Replaces the stored record with the same identity as `object`.
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/recordNotFound(identity:)`` if no such
    ///   record is stored.
    public mutating func update(_ object: Object) throws(PersistenceError) {
        let key = plan.identity.of(object)
        guard plan.position(of: key) != nil else {
            plan.noteNotFound(object)
            let reason = PersistenceError.Reason.recordNotFound(identity: String(describing: key.base))
            throw PersistenceError(reason, url: location, typeName: String(describing: Object.self))
        }
        plan.insert(object, key: key)
    }

    /// Deletes every stored record with the same identity as `object`; does nothing if there is none.
    public mutating func delete(_ object: Object) {
        plan.delete(object)
    }

    /// Deletes every record.
    public mutating func deleteAll() {
        _ = plan.removeAll { _ in true }
    }

    /// Makes the records exactly `objects`, in their order, and reports what changed.
    @discardableResult
    public mutating func synchronize(with objects: some Sequence<Object>) -> SynchronizeResult<Object> {
        var result = plan.synchronize(with: objects)
        result.removedUnconvertible = unconvertible
        unconvertible = 0
        return result
    }

    /// Makes the records exactly `objects`, in their order, as ``synchronize(with:)`` does.
    public mutating func replaceAll(with objects: some Sequence<Object>) {
        synchronize(with: objects)
    }
}

// MARK: - Synchronize result

/// What `synchronize(with:)` changed.
public struct SynchronizeResult<Object> {
    /// The records that were not stored before, in the order given.
    public var added: [Object] = []

    /// The records whose identity was stored with another value, as they are now (none, unless `Identifiable`).
    public var updated: [Object] = []

    /// The records that are no longer stored, in their old order.
    public var removed: [Object] = []

    /// How many stored records a ``DomainStore`` removed because no value could be made from them; else 0.
    public var removedUnconvertible = 0

    /// Whether the store already held exactly the given records.
    public var isEmpty: Bool { added.isEmpty && updated.isEmpty && removed.isEmpty && removedUnconvertible == 0 }
}

extension SynchronizeResult: Equatable where Object: Equatable {}

extension SynchronizeResult: Sendable where Object: Sendable {}
