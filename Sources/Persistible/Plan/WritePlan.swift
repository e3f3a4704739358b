import Foundation

/// What a write leaves in a file: the records, in order, where each came from among those read, and what each
/// changed one held when read.
///
/// Every write plans with it: a save, an update, an overwrite, a removal, and a store's write block through
/// ``StoreWriter``. So they follow one identity rule: a value stands where the first record with its identity
/// stood, and the later records with that identity go; a new identity is appended. And one commit
/// (`Archive.commit(_:over:to:remembering:)`) turns every plan into bytes: only the new records encoded and spliced
/// on when nothing else changed, else a rewrite that keeps the stored bytes of the records the plan did not change.
struct WritePlan<Record: Hashable> {
    /// The records the write leaves, in order.
    private(set) var records: [Record]
    let identity: RecordIdentity<Record>
    /// The position of each record by identity, made by the first change that needs it.
    private(set) var index: IdentityIndex?
    /// The records as a set, for a type identified by its whole value: what `add(_:)` asks, which a large file
    /// answers without an index of `AnyHashable`s. Kept only while records are only added.
    private(set) var members: Set<Record>?
    /// How many records the file held when read.
    let storedCount: Int
    /// Whether there is a file: with none, a write that leaves no record still makes one.
    let fileExists: Bool
    /// Whether the file held a single value rather than an array.
    let storedAsSingleValue: Bool
    /// Whether the write leaves a single value, rather than an array, when it leaves one record.
    var writesSingleValue: Bool
    /// Where each record came from: `nil` while nothing but appends happened, when record `i` is the original
    /// record `i` or a new one.
    private(set) var sources: [RecordSource]?
    /// The record each changed original held when it was read, by original position, so that a rewrite can tell
    /// which of its stored keys its type does not know.
    private(set) var replacedOriginals: [Int: Record] = [:]
    /// Whether the records before `storedCount` are still the ones read, so the write is an append.
    private(set) var onlyAppended = true
    private(set) var hasChanges = false

    /// A plan that starts from `records`, as read.
    init(
        records: [Record],
        identity: RecordIdentity<Record> = RecordIdentity(),
        index: IdentityIndex? = nil,
        members: Set<Record>? = nil,
        fileExists: Bool = true,
        storedAsSingleValue: Bool = false,
        writesSingleValue: Bool = false
    ) {
        self.fileExists = fileExists
        self.records = records
        self.identity = identity
        self.index = index
        self.members = members
        self.storedAsSingleValue = storedAsSingleValue
        self.writesSingleValue = writesSingleValue
        storedCount = records.count
    }

    /// Where each record now in the plan came from, in order.
    var recordSources: [RecordSource] {
        sources ?? (0..<records.count).map { $0 < storedCount ? .unchanged($0) : .new }
    }

    /// The records, leaving the plan without any, so that the caller holds the only reference to them.
    mutating func takeRecords() -> [Record] {
        var taken: [Record] = []
        swap(&taken, &records)
        return taken
    }

    // MARK: - Reading

    /// The first record with the same identity as `object`, if any.
    func record(matching object: Record) -> Record? {
        let key = identity.of(object)
        if let index { return index[key].map { records[$0] } }
        return records.first { identity.of($0) == key }
    }

    /// The position of the first record with this identity, making the index if there is none.
    mutating func position(of key: AnyHashable) -> Int? {
        if index == nil { index = IdentityIndex(records, identity: identity) }
        return index?[key]
    }

    // MARK: - Changing

    /// Inserts `object`, replacing in place the first record with the same identity and removing the later
    /// ones with it; appends it when its identity is new.
    ///
    /// - Returns: Whether the records changed.
    @discardableResult
    mutating func insert(_ object: Record) -> Bool {
        insert(object, key: identity.of(object))
    }

    /// Inserts `object`, whose identity is `key`, as ``insert(_:)`` does.
    private mutating func insert(_ object: Record, key: AnyHashable) -> Bool {
        guard let position = position(of: key) else {
            index?.note(key, at: records.count)
            members?.insert(object)
            records.append(object)
            sources?.append(.new)
            hasChanges = true
            return true
        }
        return replace(key, at: position, with: object)
    }

    /// Saves `object` as `Persistible/saveToFile()` does: as ``insert(_:)`` does for a type identified by an `id`;
    /// for a type identified by its whole value, appends it unless the records hold it, wherever and however often.
    ///
    /// - Returns: Whether the records changed.
    @discardableResult
    mutating func add(_ object: Record) -> Bool {
        guard !identity.usesIdentifier else { return insert(object) }
        if members == nil { members = Set(records) }
        guard members!.insert(object).inserted else { return false }
        // The index would need the whole value hashed again: made anew by the next write that needs it.
        index = nil
        records.append(object)
        sources?.append(.new)
        hasChanges = true
        return true
    }

    /// Adds each of `objects` in order, as ``add(_:)`` does.
    ///
    /// - Returns: How many identities were added or had their records changed.
    mutating func add(contentsOf objects: [Record]) -> Int {
        if identity.usesIdentifier {
            var changed = Set<AnyHashable>()
            for object in objects {
                let key = identity.of(object)
                if insert(object, key: key) { changed.insert(key) }
            }
            return changed.count
        }
        if records.isEmpty {
            // Most arrays hold no duplicates: their values become the records without a copy.
            let set: Set<Record>
            (records, set) = Self.unique(objects)
            members = set
            index = nil
            sources = sources.map { _ in Array(repeating: .new, count: records.count) }
            hasChanges = hasChanges || !records.isEmpty
            return records.count
        }
        var added = 0
        for object in objects where add(object) { added += 1 }
        return added
    }

    /// Deletes every record with the same identity as `object`.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    mutating func delete(_ object: Record) -> Bool {
        let key = identity.of(object)
        guard let position = position(of: key) else { return false }
        trackSources()
        if index?.repeated.contains(key) == true {
            removeRecords(at: records.indices.filter { identity.of(records[$0]) == key })
        } else {
            records.remove(at: position)
            sources?.remove(at: position)
        }
        index = nil
        members = nil
        // Every record removed stands at `position` or after it.
        onlyAppended = onlyAppended && position >= storedCount
        hasChanges = true
        return true
    }

    /// Deletes the records for which `shouldRemove` is true, each on its own, whatever other records share its
    /// identity.
    ///
    /// - Returns: How many were deleted.
    mutating func removeAll(where shouldRemove: (Record) throws -> Bool) rethrows -> Int {
        let removed = try records.indices.filter { try shouldRemove(records[$0]) }
        guard let first = removed.first else { return 0 }
        trackSources()
        removeRecords(at: removed)
        index = nil
        members = nil
        onlyAppended = onlyAppended && first >= storedCount
        hasChanges = true
        return removed.count
    }

    /// Deletes every record.
    mutating func deleteAll() {
        guard !records.isEmpty else { return }
        onlyAppended = onlyAppended && storedCount == 0
        records.removeAll()
        sources = []
        index = IdentityIndex()
        members = nil
        hasChanges = true
    }

    /// Makes the records exactly `contents`, each taking the place of the record with its identity (see
    /// ``sources(matching:)``), except that a single value replacing a single value of a type identified by its
    /// whole value is that record changed, since such a file holds its one record whatever the value.
    ///
    /// It leaves the plan as it is when `contents` are what the file holds.
    mutating func replaceAll(with contents: PersistenceData<Record>) {
        if case .single = contents { writesSingleValue = true } else { writesSingleValue = false }
        let values = contents.values
        guard values != records || writesSingleValue != storedAsSingleValue || !fileExists else { return }
        guard case .single(let value) = contents, storedAsSingleValue, records.count == 1 else {
            replaceRecords(values, sources: sources(matching: values))
            return
        }
        let read = records[0]
        let source: RecordSource = if read == value {
            .unchanged(0)
        } else if !identity.usesIdentifier || identity.of(read) == identity.of(value) {
            .changed(0)
        } else {
            .new
        }
        replaceRecords(values, sources: [source])
    }

    /// Makes the records exactly `objects`, in their order, and reports what changed; of several objects with one
    /// identity, the last stands where the first stood, as if they were inserted one after the other.
    mutating func synchronize(with objects: some Sequence<Record>) -> SynchronizeResult<Record> {
        let ordered = Self.inOrder(objects, identity: identity)
        var incoming: [AnyHashable: Record] = [:]
        incoming.reserveCapacity(ordered.count)
        for object in ordered { incoming[identity.of(object)] = object }
        var result = SynchronizeResult<Record>()
        var stored = Set<AnyHashable>()
        for record in records {
            let key = identity.of(record)
            // A later record with a stored identity goes, whatever `objects` holds.
            guard stored.insert(key).inserted else {
                result.removed.append(record)
                continue
            }
            if let replacement = incoming[key] {
                if replacement != record { result.updated.append(replacement) }
            } else {
                result.removed.append(record)
            }
        }
        result.added = ordered.filter { !stored.contains(identity.of($0)) }
        if ordered != records {
            replaceRecords(ordered, sources: sources(matching: ordered))
        }
        return result
    }

    /// Makes the records `objects`, where `sources` says which of the current records each one is or replaces,
    /// by position; for a caller that knows, so that records stored with one identity several times stay as
    /// they are unless changed.
    ///
    /// - Parameter originals: For a replaced record, by position, the value to count as what it held when read,
    ///   where that is not the record itself: a ``DomainStore`` gives the stored form its domain value makes, so
    ///   that what the conversion does not keep counts as unknown to the type, and stays as stored.
    mutating func replaceRecords(
        _ objects: [Record], sources objectSources: [RecordSource], originals: [Int: Record] = [:]
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
        members = nil
        hasChanges = true
    }

    /// Where each of `values` comes from among the current records, found by identity: a value equal to a record
    /// with its identity is that record unchanged, one that differs is the first such record changed, others are
    /// new. Each record is the source of one value at most.
    ///
    /// For writes that know only the records before and after, not what changed in between; every record's
    /// identity is hashed once, which costs far less than encoding them all.
    func sources(matching values: [Record]) -> [RecordSource] {
        // The positions of each identity, as a queue: `next` links each position to the next one with the same
        // identity, so that records holding one identity several times are matched in order, and a later one the
        // write did not touch keeps its bytes rather than being encoded anew.
        var stored: [AnyHashable: Int] = [:]
        stored.reserveCapacity(records.count)
        var next = [Int](repeating: -1, count: records.count)
        for position in records.indices.reversed() {
            if let later = stored.updateValue(position, forKey: identity.of(records[position])) {
                next[position] = later
            }
        }
        return values.map { value -> RecordSource in
            let key = identity.of(value)
            guard let first = stored[key] else { return .new }
            // Of several records with this identity, the one that holds this very value keeps its bytes; failing
            // that, the first in line is the one changed.
            var previous = -1
            var position = first
            while records[position] != value, next[position] >= 0 {
                previous = position
                position = next[position]
            }
            if records[position] != value {
                (previous, position) = (-1, first)
            }
            if previous < 0 {
                stored[key] = next[position] < 0 ? nil : next[position]
            } else {
                next[previous] = next[position]
            }
            return records[position] == value ? .unchanged(position) : .changed(position)
        }
    }

    // MARK: - Helpers

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

    /// Puts `object` at `position`, the first record with its identity `key`, and removes the later ones.
    ///
    /// - Returns: Whether the records changed.
    @discardableResult
    mutating func replace(_ key: AnyHashable, at position: Int, with object: Record) -> Bool {
        let repeated = index?.repeated.contains(key) == true
        guard records[position] != object || repeated else { return false }
        trackSources()
        switch sources![position] {
        case .unchanged(let original):
            replacedOriginals[original] = records[position]
            sources![position] = .changed(original)
        case .changed(let original) where replacedOriginals[original] == object:
            // Back to what it held when read: its stored bytes serve again.
            replacedOriginals[original] = nil
            sources![position] = .unchanged(original)
        default:
            break
        }
        records[position] = object
        members = nil
        if repeated {
            removeRecords(at: records.indices.filter { $0 > position && identity.of(records[$0]) == key })
            index = nil
        }
        // The later records removed stand after `position`.
        onlyAppended = onlyAppended && position >= storedCount
        hasChanges = true
        return true
    }

    // MARK: - The identity rule for given values

    /// `values` inserted one after the other into no records: of several with one identity, the last stands where
    /// the first stood.
    static func inOrder(_ values: some Sequence<Record>, identity: RecordIdentity<Record>) -> [Record] {
        var positions: [AnyHashable: Int] = [:]
        var result: [Record] = []
        result.reserveCapacity(values.underestimatedCount)
        for value in values {
            let key = identity.of(value)
            if let position = positions[key] {
                result[position] = value
            } else {
                positions[key] = result.count
                result.append(value)
            }
        }
        return result
    }

    /// The values without their duplicates, in first-seen order, and the set of them.
    static func unique(_ values: [Record]) -> ([Record], Set<Record>) {
        var seen = Set<Record>(minimumCapacity: values.count)
        // Most arrays have no duplicates: only the first one found makes a new array. Indices rather than an
        // iterator keep this generic loop free of per-element metadata lookups.
        var index = values.startIndex
        while index < values.endIndex {
            if !seen.insert(values[index]).inserted {
                var unique = Array(values[..<index])
                unique.reserveCapacity(values.count - 1)
                index += 1
                while index < values.endIndex {
                    if seen.insert(values[index]).inserted { unique.append(values[index]) }
                    index += 1
                }
                return (unique, seen)
            }
            index += 1
        }
        return (values, seen)
    }
}

/// Where a record of a ``WritePlan`` came from, so that a rewrite can keep the stored bytes of records it did not
/// change.
enum RecordSource: Equatable {
    /// The original record at this position, as read.
    case unchanged(Int)
    /// A new value for the original record at this position: same identity, changed value.
    case changed(Int)
    /// A record with an identity the file did not hold.
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
