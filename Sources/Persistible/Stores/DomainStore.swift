import Foundation

/// A store of domain values whose file holds a separate stored representation, converted both ways.
///
/// Every operation of ``Store`` works on the domain values: reads, queries, write blocks, `synchronize(with:)`,
/// child stores. The file is a ``FileStore`` of `Object.Stored`, with the same locking, atomic writes and
/// guarantees. A stored record that does not convert to a domain value is skipped by reads and kept by writes,
/// except `synchronize(with:)` and `replaceAll(with:)`, which make the store hold exactly the given values and so
/// remove it; ``SynchronizeResult/removedUnconvertible`` counts those, and ``unconvertibleRecords()`` lists them.
///
/// Records are matched by the domain value's identity, never by the stored form's. A write keeps the stored bytes of
/// every record it does not change, and a changed record keeps what the conversion to a domain value and back does
/// not keep (see ``StoredRepresentable``), or the write throws
/// ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` and writes nothing, as a ``FileStore``'s does.
///
/// ```swift
/// let users = DomainStore<User>(url: usersFile)
/// try users.insert(User(username: "amy", role: .admin))
/// let admins = try users.filter(where: \.role == .admin).result()
/// ```
///
/// **A `DomainStore` can be used from any thread and from several processes at once**, as a ``FileStore`` can.
public struct DomainStore<Object: StoredRepresentable>: Store, Sendable {
    /// The store of the stored representations.
    public let storage: FileStore<Object.Stored>
    private let identity = RecordIdentity<Object>()

    /// A store over the records of `storage`.
    ///
    /// - Parameter storage: The file store that holds the stored representations.
    public init(_ storage: FileStore<Object.Stored>) {
        self.storage = storage
    }

    /// A store in the file at `url`, with the package's default encoder, decoder and durability.
    ///
    /// - Parameter url: The file. Its directory is created by the first write.
    public init(url: URL) {
        self.init(FileStore(url: url))
    }

    /// The URL of the file.
    public var url: URL { storage.url }

    public func readRecords<Result>(_ body: (StoreReader<Object>) throws -> Result) throws -> Result {
        try storage.readRecords { reader in
            try body(StoreReader(records: reader.all().compactMap(Object.init(stored:))))
        }
    }

    public func writeRecords<Result>(_ body: (inout StoreWriter<Object>) throws -> Result) throws -> Result {
        let identity = identity
        return try storage.writeRecords { storedWriter in
            let stored = storedWriter.all()
            // Each stored record's domain value, or nil for one that does not convert.
            let converted = stored.map(Object.init(stored:))
            var writer = StoreWriter(
                records: converted.compactMap { $0 }, identity: identity, location: storage.url
            )
            writer.unconvertible = converted.count - writer.records.count
            let result = try body(&writer)
            let changes: StoredChanges
            if writer.resynchronized {
                guard writer.hasChanges || writer.unconvertible > 0 else { return result }
                changes = Self.resynchronized(writer.records, writer.recordSources, from: stored, converted)
            } else {
                guard writer.hasChanges else { return result }
                changes = Self.merge(writer.records, writer.recordSources, into: stored, converted)
            }
            storedWriter.replaceRecords(changes.records, sources: changes.sources, originals: changes.originals)
            return result
        }
    }

    /// The stored records a write leaves, where each came from among those read, and what each changed one held.
    private struct StoredChanges {
        var records: [Object.Stored] = []
        var sources: [RecordSource] = []
        /// For each changed record, by stored position, its domain value's stored form: the record as the domain
        /// type reads it, so that what a conversion does not keep (a key it drops, a role it reads as `.unknown`)
        /// counts as unknown to the type and stays as stored where the write leaves it alone.
        var originals: [Int: Object.Stored] = [:]

        mutating func keep(_ record: Object.Stored, at position: Int) {
            records.append(record)
            sources.append(.unchanged(position))
        }

        /// Adds `record`, which took the place of the stored record at `position`, `read` as a domain value. A
        /// record whose domain value did not change keeps its stored form as read, so that a conversion that is
        /// not exact both ways never changes records the write did not touch.
        mutating func add(_ record: Object, at position: Int, storedAs stored: Object.Stored, read: Object) {
            guard record != read else {
                keep(stored, at: position)
                return
            }
            records.append(record.stored)
            sources.append(.changed(position))
            originals[position] = read.stored
        }

        mutating func add(new record: Object) {
            records.append(record.stored)
            sources.append(.new)
        }
    }

    /// The stored records with the changes of `records` applied: each changed or kept record where it was, the
    /// unconvertible ones kept in place, the deleted ones left out and the new ones at the end.
    ///
    /// Records are matched by where they came from, not by identity, so that a file holding one identity several
    /// times keeps each of them as it was.
    ///
    /// - Parameter sources: Where each of `records` came from, as positions among the convertible records.
    private static func merge(
        _ records: [Object], _ sources: [RecordSource], into stored: [Object.Stored], _ converted: [Object?]
    ) -> StoredChanges {
        // The record now at each convertible position, and the new ones.
        var byOriginal = [Int](repeating: -1, count: converted.count)
        var added: [Object] = []
        for (index, source) in sources.enumerated() {
            switch source {
            case .unchanged(let original), .changed(let original): byOriginal[original] = index
            case .new: added.append(records[index])
            }
        }
        var changes = StoredChanges()
        var original = 0
        for (position, value) in converted.enumerated() {
            guard let value else {
                changes.keep(stored[position], at: position)
                continue
            }
            defer { original += 1 }
            let index = byOriginal[original]
            guard index >= 0 else { continue }
            changes.add(records[index], at: position, storedAs: stored[position], read: value)
        }
        for record in added { changes.add(new: record) }
        return changes
    }

    /// The stored records for `records`, in their order, after `synchronize(with:)`: the unconvertible ones left
    /// out.
    ///
    /// Records are matched by where they came from, which the domain identities decided, never by the stored
    /// form's identity: a stored type that is not `Identifiable` is identified by its whole value, so a changed
    /// record would count as new and lose what its stored bytes hold beyond its type.
    ///
    /// - Parameter sources: Where each of `records` came from, as positions among the convertible records.
    private static func resynchronized(
        _ records: [Object], _ sources: [RecordSource], from stored: [Object.Stored], _ converted: [Object?]
    ) -> StoredChanges {
        // The stored position of each convertible record, and its domain value.
        let readable = converted.enumerated().compactMap { position, value in value.map { (position, $0) } }
        var changes = StoredChanges()
        for (record, source) in zip(records, sources) {
            switch source {
            case .unchanged(let original), .changed(let original):
                let (position, value) = readable[original]
                changes.add(record, at: position, storedAs: stored[position], read: value)
            case .new:
                changes.add(new: record)
            }
        }
        return changes
    }

    /// The stored records from which no domain value can be made, which reads skip, in stored order.
    ///
    /// ```swift
    /// for record in try users.unconvertibleRecords() { print("Skipped", record) }
    /// ```
    ///
    /// - Returns: The records as decoded from the file.
    /// - Throws: ``PersistenceError`` if the file cannot be read.
    public func unconvertibleRecords() throws -> [Object.Stored] {
        try storage.all().filter { Object(stored: $0) == nil }
    }
}

extension DomainStore where Object.Stored: Persistible {
    /// A store in the stored type's own file, ``Persistible/archiveUrl``, with its encoder, decoder, durability,
    /// defaults and migrations.
    public init() {
        self.init(FileStore())
    }
}
