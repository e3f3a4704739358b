import Foundation

/// The records of a store inside a `write(_:)` block, and the changes made to them.
///
/// Every change is made in memory; the block's changes reach the store together when it returns, or not at all if
/// it throws. Records keep their order: an insert of a new record appends it, and an insert or update of a stored
/// record replaces it where it stands. How a file holding one identity several times is changed is in
/// <doc:StoresAndQueries#Identity>.
public struct StoreWriter<Object: Hashable> {
    /// The records and where each came from: the plan the store's write commits.
    var plan: WritePlan<Object>
    /// Where the records are kept, for errors: the file, or `memory:`.
    private let location: URL
    /// How many stored records a ``DomainStore`` skipped as unconvertible, which `synchronize(with:)` removes.
    var unconvertible = 0
    /// Whether `synchronize(with:)` made the records exactly some given objects, which removes the unconvertible.
    private(set) var resynchronized = false

    init(records: [Object], identity: RecordIdentity<Object>, location: URL) {
        plan = WritePlan(records: records, identity: identity)
        self.location = location
    }

    /// A writer that takes `plan`, leaving it empty, so that changes to the records copy none of them.
    init(taking plan: inout WritePlan<Object>, location: URL) {
        self.plan = plan
        plan = WritePlan(records: [], identity: plan.identity)
        self.location = location
    }

    // MARK: - Reading

    /// Every record, in stored order, including the block's changes so far.
    public func all() -> [Object] { plan.records }

    /// The stored record with the same identity as `object`, if any; the first of them, if several are stored.
    public func record(matching object: Object) -> Object? {
        plan.record(matching: object)
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

    /// Inserts `object`, replacing in place a stored record with the same identity, and removing any later
    /// records with that identity.
    public mutating func insert(_ object: Object) {
        plan.insert(object)
    }

    /// Inserts each object in order, as ``insert(_:)`` does.
    public mutating func insert(contentsOf objects: some Sequence<Object>) {
        for object in objects { insert(object) }
    }

    /// Replaces the stored record with the same identity as `object`, and removes any later records with that
    /// identity.
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/recordNotFound(identity:)`` if no such
    ///   record is stored.
    public mutating func update(_ object: Object) throws(PersistenceError) {
        let key = plan.identity.of(object)
        guard let position = plan.position(of: key) else {
            let reason = PersistenceError.Reason.recordNotFound(identity: String(describing: key.base))
            throw PersistenceError(reason, url: location, typeName: String(describing: Object.self))
        }
        plan.replace(key, at: position, with: object)
    }

    /// Deletes every stored record with the same identity as `object`; does nothing if there is none.
    public mutating func delete(_ object: Object) {
        plan.delete(object)
    }

    /// Deletes every record.
    public mutating func deleteAll() {
        plan.deleteAll()
    }

    /// Makes the records exactly `objects`, in their order, and reports what changed.
    ///
    /// Of several objects with one identity, the last stands where the first stood, as if they were inserted one
    /// after the other. In a ``DomainStore``, it removes the stored records that do not convert too, and counts
    /// them in ``SynchronizeResult/removedUnconvertible``.
    @discardableResult
    public mutating func synchronize(with objects: some Sequence<Object>) -> SynchronizeResult<Object> {
        resynchronized = true
        var result = plan.synchronize(with: objects)
        result.removedUnconvertible = unconvertible
        return result
    }

    /// Makes the records exactly `objects`, in their order, as ``synchronize(with:)`` does.
    public mutating func replaceAll(with objects: some Sequence<Object>) {
        synchronize(with: objects)
    }
}
