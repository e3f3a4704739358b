import Foundation

/// The records of a store inside a `write(_:)` block, and the changes made to them.
///
/// Every change is made in memory; the block's changes reach the store together when it returns, or not at all if
/// it throws. Records keep their order: an insert of a new record appends it, and an insert or update of a stored
/// record replaces it where it stands.
///
/// A file written by other means may hold several records with one identity. Reads return them as they are
/// stored; ``insert(_:)`` and ``update(_:)`` replace the first and remove the later ones, and ``delete(_:)``
/// removes all of them, as ``Persistible/saveToFile()`` and ``Persistible/removeFromFile()`` do.
public struct StoreWriter<Object: Hashable> {
    /// The records and where each came from: the plan the store's write commits.
    var plan: WritePlan<Object>
    /// Where the records are kept, for errors: the file, or `memory:`.
    private let location: URL
    /// How many stored records a ``DomainStore`` skipped because no value could be made from them, which
    /// `synchronize(with:)` removes.
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

    var records: [Object] { plan.records }
    var hasChanges: Bool { plan.hasChanges }
    /// Where each record now in the writer came from, in order.
    var recordSources: [RecordSource] { plan.recordSources }

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
    /// after the other. In a ``DomainStore``, stored records that no
    /// domain value could be made from are removed too, and counted in
    /// ``SynchronizeResult/removedUnconvertible``.
    @discardableResult
    public mutating func synchronize(with objects: some Sequence<Object>) -> SynchronizeResult<Object> {
        resynchronized = true
        var result = plan.synchronize(with: objects)
        result.removedUnconvertible = unconvertible
        return result
    }

    /// Makes the records exactly `objects`, in their order; of several with one identity, the last stands where the
    /// first stood.
    public mutating func replaceAll(with objects: some Sequence<Object>) {
        synchronize(with: objects)
    }

    /// Makes the records `objects`, where `sources` says which of the current records each one is or replaces:
    /// see ``WritePlan/replaceRecords(_:sources:originals:)``.
    mutating func replaceRecords(
        _ objects: [Object], sources objectSources: [RecordSource], originals: [Int: Object] = [:]
    ) {
        plan.replaceRecords(objects, sources: objectSources, originals: originals)
    }
}
