#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A collection of records kept somewhere: a JSON file (``FileStore``) or memory (``MemoryStore``).
///
/// A store holds records in order, identified as <doc:StoresAndQueries#Identity> says.
public protocol Store<Object> {
    /// The type of the records.
    associatedtype Object: Hashable

    /// What ``read(_:)-9eoee`` does and throws: the one way a store is read.
    func readRecords<Result>(_ body: (StoreReader<Object>) throws -> Result) throws -> Result

    /// What ``write(_:)-7q86h`` does and throws: the one way a store is changed.
    func writeRecords<Result>(_ body: (inout StoreWriter<Object>) throws -> Result) throws -> Result
}

/// The records of a store inside a `read(_:)` block.
public struct StoreReader<Object: Hashable> {
    let records: [Object]

    /// Every record, in stored order.
    public func all() -> [Object] { records }

    /// A query over these records.
    public func filter(where filter: StoreFilter<Object>) -> StoreQuery<MemoryStore<Object>> {
        MemoryStore(asStored: records).filter(where: filter)
    }
}

// MARK: - Operations

extension Store {
    /// Runs `body` with the records as they are now.
    ///
    /// - Throws: ``PersistenceError`` if the records cannot be read, or what `body` throws.
    public func read<Result>(_ body: (StoreReader<Object>) throws -> Result) throws -> Result {
        try readRecords(body)
    }

    /// Runs `body` with the records, then stores its changes in one atomic write (<doc:StoresAndQueries#Write-blocks>).
    ///
    /// - Throws: ``PersistenceError`` if the records cannot be read or stored, with
    ///   ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` if a changed, migrated or re-encoded record
    ///   would lose what its type does not read; or what `body` throws. The store is then as it was.
    public func write<Result>(_ body: (inout StoreWriter<Object>) throws -> Result) throws -> Result {
        try writeRecords(body)
    }

    /// Every record, in stored order.
    public func all() throws -> [Object] {
        try read { $0.all() }
    }

    /// Inserts `object`, replacing in place a stored record with the same identity.
    public func insert(_ object: Object) throws {
        try write { $0.insert(object) }
    }

    /// Inserts each object in order, as ``insert(_:)-9smq`` does, in one write.
    public func insert(contentsOf objects: some Sequence<Object>) throws {
        try write { $0.insert(contentsOf: objects) }
    }

    /// Replaces the stored record with the same identity as `object`.
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/recordNotFound(identity:)`` if there is none.
    public func update(_ object: Object) throws {
        try write { try $0.update(object) }
    }

    /// Deletes the record with the same identity as `object`; does nothing if there is none.
    public func delete(_ object: Object) throws {
        try write { $0.delete(object) }
    }

    /// Deletes every record.
    public func deleteAll() throws {
        try write { $0.deleteAll() }
    }

    /// Makes the store hold exactly `objects`, in their order, in one write: `try copy.replaceAll(with: store.all())`.
    public func replaceAll(with objects: some Sequence<Object>) throws {
        try write { $0.replaceAll(with: objects) }
    }

    /// Makes the store hold exactly `objects`, in their order, and reports what changed: how to mirror a server.
    @discardableResult
    public func synchronize(with objects: some Sequence<Object>) throws -> SynchronizeResult<Object> {
        try write { $0.synchronize(with: objects) }
    }

    /// A query for the records that `filter` keeps.
    @inlinable
    public func filter(where filter: StoreFilter<Object>) -> StoreQuery<Self> {
        StoreQuery(store: self, filter: filter)
    }

    /// A query for the records that a Foundation predicate keeps.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    public func filter(where predicate: Predicate<Object>) -> StoreQuery<Self> {
        StoreQuery(store: self, filter: StoreFilter(predicate))
    }
}
