import Foundation

/// A store of domain values whose file holds a separate stored representation, converted both ways.
///
/// Every operation of ``Store`` works on the domain values: reads, queries, write blocks, `synchronize(with:)`,
/// child stores. The file is a ``FileStore`` of `Object.Stored`, with the same locking, atomic writes and
/// guarantees. A stored record that does not convert to a domain value is skipped by reads and kept by writes,
/// except `synchronize(with:)` and `replaceAll(with:)`, which make the store hold exactly the given values and so
/// remove it; ``SynchronizeResult/removedUnconvertible`` counts those, and ``unconvertibleRecords()`` lists them.
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
            if writer.resynchronized {
                if writer.hasChanges || writer.unconvertible > 0 {
                    storedWriter.replaceAll(with: Self.stored(writer.records, from: stored, converted, identity: identity))
                }
                return result
            }
            guard writer.hasChanges else { return result }
            storedWriter.replaceAll(with: Self.merge(writer.records, into: stored, converted, identity: identity))
            return result
        }
    }

    /// The stored records with the changes of `records` applied: each changed or kept record where it was, the
    /// unconvertible ones kept in place, the deleted ones left out and the new ones at the end.
    ///
    /// A record whose domain value did not change keeps its stored form as read, so that a conversion that is not
    /// exact both ways never changes records the write did not touch.
    private static func merge(
        _ records: [Object], into stored: [Object.Stored], _ converted: [Object?], identity: RecordIdentity<Object>
    ) -> [Object.Stored] {
        var remaining: [AnyHashable: Object] = [:]
        var order: [AnyHashable] = []
        for record in records {
            let key = identity.of(record)
            if remaining.updateValue(record, forKey: key) == nil { order.append(key) }
        }
        var result: [Object.Stored] = []
        result.reserveCapacity(records.count + stored.count - converted.count)
        for (index, value) in converted.enumerated() {
            guard let value else {
                result.append(stored[index])
                continue
            }
            guard let now = remaining.removeValue(forKey: identity.of(value)) else { continue }
            result.append(now == value ? stored[index] : now.stored)
        }
        for key in order {
            if let added = remaining.removeValue(forKey: key) { result.append(added.stored) }
        }
        return result
    }

    /// The stored form of each of `records`, in their order: as read for a record whose domain value did not
    /// change, so that a conversion that is not exact both ways never changes records the write did not touch.
    private static func stored(
        _ records: [Object], from stored: [Object.Stored], _ converted: [Object?], identity: RecordIdentity<Object>
    ) -> [Object.Stored] {
        var read: [AnyHashable: Int] = [:]
        for (index, value) in converted.enumerated() {
            if let value, read[identity.of(value)] == nil { read[identity.of(value)] = index }
        }
        return records.map { record in
            guard let index = read[identity.of(record)], converted[index] == record else { return record.stored }
            return stored[index]
        }
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
