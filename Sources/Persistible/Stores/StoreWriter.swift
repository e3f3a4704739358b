import Foundation

/// The records of a store inside a `write(_:)` block, and the changes made to them.
///
/// Every change is made in memory; the block's changes reach the store together when it returns, or not at all if
/// it throws. Records keep their order: an insert of a new record appends it, and an insert or update of a stored
/// record replaces it where it stands.
public struct StoreWriter<Object: Hashable> {
    private(set) var records: [Object]
    private let identity: RecordIdentity<Object>
    /// The position of each record by identity, made by the first change that needs it.
    private(set) var positions: [AnyHashable: Int]?
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
        positions: [AnyHashable: Int]? = nil
    ) {
        self.records = records
        self.identity = identity
        self.location = location
        self.positions = positions
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

    /// The stored record with the same identity as `object`, if any.
    public func record(matching object: Object) -> Object? {
        let key = identity.of(object)
        if let positions { return positions[key].map { records[$0] } }
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

    /// Inserts `object`, replacing in place a stored record with the same identity.
    public mutating func insert(_ object: Object) {
        let key = identity.of(object)
        if let index = index(of: key) {
            guard records[index] != object else { return }
            replace(at: index, with: object)
        } else {
            positions?[key] = records.count
            records.append(object)
            sources?.append(.new)
            hasChanges = true
        }
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
        guard let index = index(of: identity.of(object)) else {
            let reason = PersistenceError.Reason.recordNotFound(identity: String(describing: identity.of(object).base))
            throw PersistenceError(reason, url: location, typeName: String(describing: Object.self))
        }
        guard records[index] != object else { return }
        replace(at: index, with: object)
    }

    /// Deletes the stored record with the same identity as `object`; does nothing if there is none.
    public mutating func delete(_ object: Object) {
        guard let index = index(of: identity.of(object)) else { return }
        trackSources()
        records.remove(at: index)
        sources?.remove(at: index)
        positions = nil
        onlyAppended = onlyAppended && index >= originalCount
        hasChanges = true
    }

    /// Deletes every record.
    public mutating func deleteAll() {
        guard !records.isEmpty else { return }
        onlyAppended = onlyAppended && originalCount == 0
        records.removeAll()
        sources = []
        positions = [:]
        hasChanges = true
    }

    /// Makes the records exactly `objects`, in their order, and reports what changed.
    ///
    /// Of several objects with one identity, the first is kept. In a ``DomainStore``, stored records that no
    /// domain value could be made from are removed too, and counted in
    /// ``SynchronizeResult/removedUnconvertible``.
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
        result.removedUnconvertible = unconvertible
        resynchronized = true
        var stored: [AnyHashable: Object] = [:]
        var storedSources: [AnyHashable: RecordSource] = [:]
        let currentSources = recordSources
        for (index, record) in records.enumerated() {
            let key = identity.of(record)
            stored[key] = record
            storedSources[key] = currentSources[index]
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
            positions = nil
            hasChanges = true
        }
        return result
    }

    /// Makes the records exactly `objects`, in their order.
    public mutating func replaceAll(with objects: some Sequence<Object>) {
        synchronize(with: objects)
    }

    // MARK: - Index

    private mutating func trackSources() {
        if sources == nil { sources = recordSources }
    }

    private mutating func index(of key: AnyHashable) -> Int? {
        if positions == nil {
            var built: [AnyHashable: Int] = [:]
            built.reserveCapacity(records.count)
            for (index, record) in records.enumerated() where built[identity.of(record)] == nil {
                built[identity.of(record)] = index
            }
            positions = built
        }
        return positions?[key]
    }

    private mutating func replace(at index: Int, with object: Object) {
        trackSources()
        if case .unchanged(let original) = sources![index] {
            replacedOriginals[original] = records[index]
            sources![index] = .changed(original)
        }
        records[index] = object
        onlyAppended = onlyAppended && index >= originalCount
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
}
