import Foundation

/// A domain value that a ``DomainStore`` keeps in its file as a separate, `Codable` representation.
///
/// The domain value can be whatever the app works with best (enums rather than strings, no optionals where there
/// is always a value) while the file holds a plain representation that changes only when the file format does.
/// Converting to the stored form always succeeds; converting back may not, for a record that this version does
/// not understand, and then the store skips the record.
///
/// A changed record keeps, as stored, what the conversion there and back does not keep; see
/// <doc:StoresAndQueries#Domain-values-and-their-stored-form>.
///
/// ```swift
/// struct User: Hashable, Identifiable, StoredRepresentable {
///     struct Stored: Codable, Hashable, Identifiable {
///         var id: String { username }
///         var username: String
///         var role: String
///     }
///
///     var username: String
///     var role: UserRole
///     var id: String { username }
///
///     var stored: Stored { Stored(username: username, role: role.rawValue) }
///
///     init?(stored: Stored) {
///         username = stored.username
///         role = UserRole(rawValue: stored.role) ?? .unknown
///     }
/// }
/// ```
public protocol StoredRepresentable: Hashable {
    /// The form the file holds.
    associatedtype Stored: Codable & Hashable

    /// The stored form of this value.
    var stored: Stored { get }

    /// The value a stored record holds, or `nil` if this version cannot make one from it.
    ///
    /// - Parameter stored: A record as decoded from the file.
    init?(stored: Stored)
}

/// A store of domain values whose file holds a separate stored representation, converted both ways.
///
/// Every operation of ``Store`` works on the domain values, matched by the domain value's identity. The file is a
/// ``FileStore`` of `Object.Stored`, with the same locking, atomic writes and guarantees. A stored record that does
/// not convert is skipped by reads, kept by writes and listed by ``unconvertibleRecords()``; `synchronize(with:)`
/// and `replaceAll(with:)` remove it. What a changed record keeps of its stored form is in
/// <doc:StoresAndQueries#Domain-values-and-their-stored-form>.
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
            let converted = stored.map(Object.init(stored:))
            // The stored position of each record the domain writer holds.
            let readable = converted.indices.filter { converted[$0] != nil }
            var writer = StoreWriter(records: readable.map { converted[$0]! }, identity: identity, location: url)
            writer.unconvertible = stored.count - readable.count
            let result = try body(&writer)
            // Only `synchronize(with:)` removes the unconvertible records: it makes the store hold exactly its values.
            let keepsUnconvertible = !writer.resynchronized
            guard writer.plan.hasChanges || (!keepsUnconvertible && writer.unconvertible > 0) else { return result }

            // The stored records the write leaves, matched by where they came from, never by the stored form's
            // identity, so that a record stored several times, or whose stored type is identified by its whole
            // value, keeps its stored bytes. A changed record's original is its domain value's stored form: what
            // the conversion does not keep counts as unknown to the type, and stays as stored where left alone.
            var records: [Object.Stored] = []
            var sources: [RecordSource] = []
            var originals: [Int: Object.Stored] = [:]
            var passed = 0
            // Keeps where they stand the unconvertible records before `end` not yet passed. But after a synchronize,
            // the writer keeps the stored order and appends new records, so the passes run in stored order.
            func pass(to end: Int) {
                if keepsUnconvertible, passed < end {
                    for position in passed..<end where converted[position] == nil {
                        records.append(stored[position])
                        sources.append(.unchanged(position))
                    }
                }
                passed = max(passed, end)
            }
            for (record, source) in zip(writer.plan.records, writer.plan.recordSources) {
                switch source {
                case .unchanged(let index), .changed(let index):
                    let position = readable[index]
                    pass(to: position)
                    // A record whose domain value did not change keeps its stored form, even where the conversion
                    // is not exact both ways.
                    if record == converted[position] {
                        records.append(stored[position])
                        sources.append(.unchanged(position))
                    } else {
                        records.append(record.stored)
                        sources.append(.changed(position))
                        originals[position] = converted[position]!.stored
                    }
                case .new:
                    pass(to: stored.count)
                    records.append(record.stored)
                    sources.append(.new)
                }
            }
            pass(to: stored.count)
            storedWriter.plan.replaceRecords(records, sources: sources, originals: originals)
            return result
        }
    }

    /// The stored records from which no domain value can be made, which reads skip, in stored order.
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
