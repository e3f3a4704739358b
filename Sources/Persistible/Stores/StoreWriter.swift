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
public struct StoreWriter<Object: Codable & Hashable> {
    private(set) var records: [Object]
    private let identity: RecordIdentity<Object>
    /// The position of each record by identity, made by the first change that needs it.
    private(set) var index: IdentityIndex?
    private let originalCount: Int
    /// Where the records are kept, for errors: the file, or `memory:`.
    private let location: URL
    /// Whether the records before `originalCount` are still the ones read, so the change is an append.
    private(set) var onlyAppended = true
    private(set) var hasChanges = false

    init(
        records: [Object],
        identity: RecordIdentity<Object>,
        location: URL,
        index: IdentityIndex? = nil
    ) {
        self.records = records
        self.identity = identity
        self.location = location
        self.index = index
        originalCount = records.count
    }

    /// The records added after the ones the block started with, when nothing else changed.
    var appendedRecords: ArraySlice<Object>? {
        onlyAppended ? records[originalCount...] : nil
    }

    // MARK: - Reading

    /// Every record, in stored order, including the block's changes so far.
    public func all() -> [Object] { records }

    /// The stored record with the same identity as `object`, if any; the first of them, if several are stored.
    public func record(matching object: Object) -> Object? {
        let key = identity.of(object)
        if let index { return index[key].map { records[$0] } }
        return records.first { identity.of($0) == key }
    }

    /// Whether a record with the same identity as `object` is stored.
    public func contains(_ object: Object) -> Bool {
        record(matching: object) != nil
    }

    /// A query over the records, including the block's changes so far.
    public func filter(where filter: StoreFilter<Object>) -> StoreQuery<MemoryStore<Object>> {
        MemoryStore(records).filter(where: filter)
    }

    // MARK: - Changing

    /// Inserts `object`, replacing in place a stored record with the same identity, and removing any later
    /// records with that identity.
    public mutating func insert(_ object: Object) {
        let key = identity.of(object)
        if let position = position(of: key) {
            replace(key, at: position, with: object)
        } else {
            index?.note(key, at: records.count)
            records.append(object)
            hasChanges = true
        }
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
        let key = identity.of(object)
        guard let position = position(of: key) else {
            let reason = PersistenceError.Reason.recordNotFound(identity: String(describing: key.base))
            throw PersistenceError(reason, url: location, typeName: String(describing: Object.self))
        }
        replace(key, at: position, with: object)
    }

    /// Deletes every stored record with the same identity as `object`; does nothing if there is none.
    public mutating func delete(_ object: Object) {
        let key = identity.of(object)
        guard let position = position(of: key) else { return }
        if index?.repeated.contains(key) == true {
            records.removeAll { identity.of($0) == key }
        } else {
            records.remove(at: position)
        }
        index = nil
        // Every record removed stands at `position` or after it.
        onlyAppended = onlyAppended && position >= originalCount
        hasChanges = true
    }

    /// Deletes every record.
    public mutating func deleteAll() {
        guard !records.isEmpty else { return }
        onlyAppended = onlyAppended && originalCount == 0
        records.removeAll()
        index = IdentityIndex()
        hasChanges = true
    }

    /// Makes the records exactly `objects`, in their order, and reports what changed.
    ///
    /// Of several objects with one identity, the first is kept.
    @discardableResult
    public mutating func synchronize(with objects: some Sequence<Object>) -> SynchronizeResult<Object> {
        var incoming: [AnyHashable: Object] = [:]
        var ordered: [Object] = []
        for object in objects {
            let key = identity.of(object)
            guard incoming[key] == nil else { continue }
            incoming[key] = object
            ordered.append(object)
        }

        var result = SynchronizeResult<Object>()
        var stored: [AnyHashable: Object] = [:]
        for record in records {
            let key = identity.of(record)
            // A later record with a stored identity goes, whatever `objects` holds.
            guard stored[key] == nil else {
                result.removed.append(record)
                continue
            }
            stored[key] = record
            if let replacement = incoming[key] {
                if replacement != record { result.updated.append(replacement) }
            } else {
                result.removed.append(record)
            }
        }
        result.added = ordered.filter { stored[identity.of($0)] == nil }
        if ordered != records {
            onlyAppended = onlyAppended && ordered.starts(with: records)
            records = ordered
            index = nil
            hasChanges = true
        }
        return result
    }

    /// Makes the records exactly `objects`, in their order.
    public mutating func replaceAll(with objects: some Sequence<Object>) {
        synchronize(with: objects)
    }

    // MARK: - Index

    private mutating func position(of key: AnyHashable) -> Int? {
        if index == nil { index = IdentityIndex(records, identity: identity) }
        return index?[key]
    }

    /// Puts `object` at `position`, the first record with its identity `key`, and removes the later ones.
    private mutating func replace(_ key: AnyHashable, at position: Int, with object: Object) {
        let repeated = index?.repeated.contains(key) == true
        guard records[position] != object || repeated else { return }
        records[position] = object
        if repeated {
            records = identity.keepingFirst(of: [key], in: records)
            index = nil
        }
        // The later records removed stand after `position`.
        onlyAppended = onlyAppended && position >= originalCount
        hasChanges = true
    }
}
