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
            let (records, sources) = Self.merge(writer.records, writer.recordSources, into: stored, converted)
            storedWriter.replaceRecords(records, sources: sources)
            return result
        }
    }

    /// The stored records with the changes of `records` applied, and where each came from: each changed or kept
    /// record where it was, the unconvertible ones kept in place, the deleted ones left out and the new ones at
    /// the end.
    ///
    /// A record whose domain value did not change keeps its stored form as read, so that a conversion that is not
    /// exact both ways never changes records the write did not touch. Records are matched by where they came
    /// from, not by identity, so that a file holding one identity several times keeps each of them as it was.
    ///
    /// - Parameter sources: Where each of `records` came from, as positions among the convertible records.
    private static func merge(
        _ records: [Object], _ sources: [RecordSource], into stored: [Object.Stored], _ converted: [Object?]
    ) -> (records: [Object.Stored], sources: [RecordSource]) {
        // The record now at each convertible position, and the new ones.
        var byOriginal = [Int](repeating: -1, count: converted.count)
        var added: [Object] = []
        for (index, source) in sources.enumerated() {
            switch source {
            case .unchanged(let original), .changed(let original): byOriginal[original] = index
            case .new: added.append(records[index])
            }
        }
        var result: [Object.Stored] = []
        var resultSources: [RecordSource] = []
        result.reserveCapacity(records.count + stored.count)
        resultSources.reserveCapacity(records.count + stored.count)
        var original = 0
        for (index, value) in converted.enumerated() {
            guard let value else {
                result.append(stored[index])
                resultSources.append(.unchanged(index))
                continue
            }
            defer { original += 1 }
            let position = byOriginal[original]
            guard position >= 0 else { continue }
            let now = records[position]
            if now == value {
                result.append(stored[index])
                resultSources.append(.unchanged(index))
            } else {
                result.append(now.stored)
                resultSources.append(.changed(index))
            }
        }
        for record in added {
            result.append(record.stored)
            resultSources.append(.new)
        }
        return (result, resultSources)
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
