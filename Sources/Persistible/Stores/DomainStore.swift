#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A domain value that a ``DomainStore`` keeps in its file as a separate, `Codable` representation
/// (<doc:StoresAndQueries#Domain-values-and-their-stored-form>).
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
/// <doc:StoresAndQueries#Domain-values-and-their-stored-form> says what becomes of records that do not convert.
///
/// **A `DomainStore` can be used from any thread and from several processes at once**, as a ``FileStore`` can.
public struct DomainStore<Object: StoredRepresentable>: Store, Sendable {
    /// The store of the stored representations.
    public let storage: FileStore<Object.Stored>

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
        try storage.writeRecords { storedWriter in
            let stored = storedWriter.all()
            let converted = stored.map(Object.init(stored:))
            // The stored position of each record the domain writer holds.
            let readable = converted.indices.filter { converted[$0] != nil }
            var writer = StoreWriter(plan: WritePlan(records: readable.map { converted[$0]! }), location: url)
            writer.unconvertible = stored.count - readable.count
            let result = try body(&writer)
            // Only `synchronize(with:)` removes the unconvertible records: it makes the store hold exactly its values.
            var unconvertible = writer.unconvertible == 0 ? [] : stored.indices.filter { converted[$0] == nil }[...]
            guard writer.plan.hasChanges || unconvertible.count < stored.count - readable.count else { return result }
            // Matched by where each record came from, never by the stored form's identity, so that a record stored
            // several times, or whose stored type is identified by its whole value, keeps its stored bytes.
            var records: [(Object.Stored, RecordSource)] = []
            var originals: [Int: Object.Stored] = [:]
            func keep(_ position: Int) {
                records.append((stored[position], .unchanged(position)))
            }
            for (record, source) in zip(writer.plan.records, writer.plan.recordSources) {
                let position: Int? = switch source {
                case .unchanged(let index), .changed(let index): readable[index]
                case .new: nil
                }
                // The unconvertible records keep their place among the stored ones; new records come after them.
                while let next = unconvertible.first, next < position ?? stored.count {
                    keep(unconvertible.removeFirst())
                }
                // A value left as it was keeps its stored form; a changed one's original is its stored form as
                // converted, so that what the conversion drops counts as unknown keys and stays as stored.
                if let position, record == converted[position] {
                    keep(position)
                } else {
                    records.append((record.stored, position.map { .changed($0) } ?? .new))
                    if let position { originals[position] = converted[position]?.stored }
                }
            }
            unconvertible.forEach(keep)
            storedWriter.plan.replaceRecords(records.map(\.0), sources: records.map(\.1), originals: originals)
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
    /// A store in the stored type's own file, as ``FileStore/init()`` opens it.
    public init() {
        self.init(FileStore())
    }
}
