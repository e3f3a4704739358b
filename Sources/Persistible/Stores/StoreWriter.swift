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
    /// How many stored records a ``DomainStore`` skipped because no value could be made from them, which
    /// `synchronize(with:)` removes.
    var unconvertible = 0
    /// Whether `synchronize(with:)` made the records exactly some given objects, which removes the unconvertible.
    private(set) var resynchronized = false
    /// Where each record came from, made by the first change: see ``RecordSource``. `nil` while nothing but
    /// appends happened, when record `i` is the original record `i` or a new one.
    private(set) var sources: [RecordSource]?
    /// The record each changed original held when it was read, by original position, so that a rewrite can tell
    /// which of its stored keys its type does not know.
    private(set) var replacedOriginals: [Int: Object] = [:]

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

    /// How many records the block started with.
    var originalRecordCount: Int { originalCount }

    /// Where each record now in the writer came from, in order.
    var recordSources: [RecordSource] {
        sources ?? (0..<records.count).map { $0 < originalCount ? .unchanged($0) : .new }
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
        MemoryStore(asStored: records).filter(where: filter)
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
            sources?.append(.new)
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
        trackSources()
        if index?.repeated.contains(key) == true {
            removeRecords(at: records.indices.filter { identity.of(records[$0]) == key })
        } else {
            records.remove(at: position)
            sources?.remove(at: position)
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
        sources = []
        index = IdentityIndex()
        hasChanges = true
    }

    /// Makes the records exactly `objects`, in their order, and reports what changed.
    ///
    /// Of several objects with one identity, the last stands where the first stood, as if they were inserted one
    /// after the other. In a ``DomainStore``, stored records that no
    /// domain value could be made from are removed too, and counted in
    /// ``SynchronizeResult/removedUnconvertible``.
    @discardableResult
    public mutating func synchronize(with objects: some Sequence<Object>) -> SynchronizeResult<Object> {
        var incoming: [AnyHashable: Object] = [:]
        var ordered: [Object] = []
        var positions: [AnyHashable: Int] = [:]
        for object in objects {
            let key = identity.of(object)
            incoming[key] = object
            if let position = positions[key] {
                ordered[position] = object
            } else {
                positions[key] = ordered.count
                ordered.append(object)
            }
        }

        var result = SynchronizeResult<Object>()
        result.removedUnconvertible = unconvertible
        resynchronized = true
        var stored: [AnyHashable: Object] = [:]
        var storedSources: [AnyHashable: RecordSource] = [:]
        let currentSources = recordSources
        for (position, record) in records.enumerated() {
            let key = identity.of(record)
            // A later record with a stored identity goes, whatever `objects` holds.
            guard stored[key] == nil else {
                result.removed.append(record)
                continue
            }
            stored[key] = record
            storedSources[key] = currentSources[position]
            if let replacement = incoming[key] {
                if replacement != record { result.updated.append(replacement) }
            } else {
                result.removed.append(record)
            }
        }
        result.added = ordered.filter { stored[identity.of($0)] == nil }
        if ordered != records {
            onlyAppended = onlyAppended && ordered.starts(with: records)
            sources = ordered.map { object in
                let key = identity.of(object)
                guard let source = storedSources[key] else { return .new }
                guard stored[key] != object else { return source }
                if case .unchanged(let original) = source { replacedOriginals[original] = stored[key] }
                return source.changed
            }
            records = ordered
            index = nil
            hasChanges = true
        }
        return result
    }

    /// Makes the records exactly `objects`, in their order; of several with one identity, the last stands where the
    /// first stood.
    public mutating func replaceAll(with objects: some Sequence<Object>) {
        synchronize(with: objects)
    }

    /// Makes the records `objects`, where `sources` says which of the current records each one is or replaces,
    /// by position; for a caller that knows, so that records stored with one identity several times stay as
    /// they are unless changed.
    ///
    /// - Parameter originals: For a replaced record, by position, the value to count as what it held when read,
    ///   where that is not the record itself: a ``DomainStore`` gives the stored form its domain value makes, so
    ///   that what the conversion does not keep counts as unknown to the type, and stays as stored.
    mutating func replaceRecords(
        _ objects: [Object], sources objectSources: [RecordSource], originals: [Int: Object] = [:]
    ) {
        let current = recordSources
        var composed: [RecordSource] = []
        composed.reserveCapacity(objects.count)
        for (object, source) in zip(objects, objectSources) {
            switch source {
            case .unchanged(let position) where records[position] == object:
                composed.append(current[position])
            case .unchanged(let position), .changed(let position):
                if case .unchanged(let original) = current[position], replacedOriginals[original] == nil {
                    replacedOriginals[original] = originals[position] ?? records[position]
                }
                composed.append(current[position].changed)
            case .new:
                composed.append(.new)
            }
        }
        onlyAppended = onlyAppended && composed.count >= records.count
            && composed.prefix(records.count).elementsEqual(current.prefix(records.count))
        sources = composed
        records = objects
        index = nil
        hasChanges = true
    }

    // MARK: - Index

    private mutating func trackSources() {
        if sources == nil { sources = recordSources }
    }

    /// Removes the records at `positions`, in increasing order, and their sources.
    private mutating func removeRecords(at positions: [Int]) {
        for position in positions.reversed() {
            records.remove(at: position)
            sources?.remove(at: position)
        }
    }

    private mutating func position(of key: AnyHashable) -> Int? {
        if index == nil { index = IdentityIndex(records, identity: identity) }
        return index?[key]
    }

    /// Puts `object` at `position`, the first record with its identity `key`, and removes the later ones.
    private mutating func replace(_ key: AnyHashable, at position: Int, with object: Object) {
        let repeated = index?.repeated.contains(key) == true
        guard records[position] != object || repeated else { return }
        trackSources()
        if case .unchanged(let original) = sources![position] {
            replacedOriginals[original] = records[position]
            sources![position] = .changed(original)
        }
        records[position] = object
        if repeated {
            removeRecords(at: records.indices.filter { $0 > position && identity.of(records[$0]) == key })
            index = nil
        }
        // The later records removed stand after `position`.
        onlyAppended = onlyAppended && position >= originalCount
        hasChanges = true
    }
}

/// Where a record in a ``StoreWriter`` came from, so that a rewrite can keep the stored bytes of records it did not
/// change.
enum RecordSource: Equatable {
    /// The original record at this position, as read.
    case unchanged(Int)
    /// A new value for the original record at this position: same identity, changed value.
    case changed(Int)
    /// A record with an identity the store did not hold.
    case new

    var changed: RecordSource {
        if case .unchanged(let original) = self { return .changed(original) }
        return self
    }

    var isUnchanged: Bool {
        if case .unchanged = self { return true }
        return false
    }
}
