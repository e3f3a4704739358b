import Foundation

/// A collection of records kept somewhere: a JSON file (``FileStore``) or memory (``MemoryStore``).
///
/// A store holds records in order. A record's identity is its `id` if its type is `Identifiable`, else its whole
/// value: inserting a record whose identity is stored replaces that record where it stands, so an edited record
/// never stands beside its old version.
///
/// Two requirements, ``readRecords(_:)`` and ``writeRecords(_:)``, carry everything: every other operation,
/// ``read(_:)-9eoee`` and ``write(_:)-7q86h`` among them, is one of them. Everything done in one `write` block lands at once,
/// or nothing does if it throws.
///
/// ```swift
/// let store = FileStore<Movie>()
/// try store.insert(dune)
/// let recent = try store.filter(where: \.year >= 2020).sorted(by: \.title).result()
/// ```
public protocol Store<Object> {
    /// The type of the records.
    associatedtype Object: Hashable

    /// Runs `body` with the records as they are now; what ``read(_:)-9eoee`` does.
    ///
    /// - Throws: ``PersistenceError`` if the records cannot be read, or what `body` throws.
    func readRecords<Result>(_ body: (StoreReader<Object>) throws -> Result) throws -> Result

    /// Runs `body` with the records, then stores what it changed, all at once; what ``write(_:)-7q86h`` does.
    ///
    /// Nothing is stored if `body` throws, or if it changes nothing. While `body` runs, no other write to the same
    /// store can start, in this process or in another.
    ///
    /// - Throws: ``PersistenceError`` if the records cannot be read or stored, or what `body` throws; the store
    ///   is then as it was.
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
    /// ```swift
    /// let (count, titles) = try store.read { reader in
    ///     (reader.all().count, reader.all().map(\.title))
    /// }
    /// ```
    ///
    /// - Throws: ``PersistenceError`` if the records cannot be read, or what `body` throws.
    public func read<Result>(_ body: (StoreReader<Object>) throws -> Result) throws -> Result {
        try readRecords(body)
    }

    /// Runs `body` with the records, then stores everything it changed in one atomic write.
    ///
    /// Nothing is stored if `body` throws, or if it changes nothing. While `body` runs, no other write to the same
    /// store can start, in this process or in another, so a read-modify-write in one block never loses another
    /// writer's change.
    ///
    /// ```swift
    /// try store.write { writer in
    ///     for movie in writer.all() where movie.budget < 1_000_000 {
    ///         writer.delete(movie)
    ///     }
    ///     writer.insert(newMovie)
    /// }
    /// ```
    ///
    /// Records the block does not change keep their stored bytes, and a changed record keeps the keys its type
    /// does not know, written by another version, and the stored bytes of each field its type read as another
    /// value and the block left as read (see <doc:ModelEvolution>).
    ///
    /// - Throws: ``PersistenceError`` if the records cannot be read or stored, with
    ///   ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` if a changed or migrated record holds keys
    ///   its new value has no place for, or the block changed an array or object that its type read as another
    ///   value, or the file must be encoded whole and a record would lose something, or what `body` throws; the
    ///   store is then as it was.
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

    /// Makes the store hold exactly `objects`, in their order, in one write.
    ///
    /// Use it to move records from one store to another: `try destination.replaceAll(with: source.all())`.
    public func replaceAll(with objects: some Sequence<Object>) throws {
        try write { $0.replaceAll(with: objects) }
    }

    /// Makes the store hold exactly `objects`, in their order, in one write, and reports what changed.
    ///
    /// This is how to mirror a collection a server returned:
    ///
    /// ```swift
    /// let changes = try store.synchronize(with: downloadedMovies)
    /// print("\(changes.added.count) new, \(changes.removed.count) gone")
    /// ```
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
