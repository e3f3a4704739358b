#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A store kept in a JSON file, with the format, locking and atomic writes of ``Persistible/saveToFile()``.
///
/// <doc:StoresAndQueries> says which file it uses, and what it does when the file is missing or does not decode.
///
/// **A `FileStore` can be used from any thread and from several processes at once.**
public struct FileStore<Object: Codable & Hashable>: Store, Sendable {
    /// The file, or the error that its type's invalid file name makes every operation throw.
    let archive: Result<Archive<Object>, PersistenceError>

    /// The URL of the file.
    public let url: URL

    /// A store in the file at `url`.
    ///
    /// - Parameters:
    ///   - url: The file. Its directory is created by the first write.
    ///   - encoder: The encoder that writes the file; the default pretty-prints with sorted keys.
    ///   - decoder: The decoder that reads it.
    ///   - durability: Whether a write waits for the disk; see ``Durability``.
    ///   - cachesRecords: Whether this process keeps the records in memory between operations; see
    ///     ``Persistible/cachesArchive``.
    ///   - lockTimeout: How long a write may wait for another writer's lock before it throws
    ///     ``PersistenceError/Reason/lockHeld(processID:)``; by default 30 seconds; `nil` waits as long as it takes.
    public init(
        url: URL,
        encoder: JSONEncoder = ArchiveFormat.encoder,
        decoder: JSONDecoder = ArchiveFormat.decoder,
        durability: Durability = .full,
        cachesRecords: Bool = true,
        lockTimeout: Duration? = defaultLockTimeout
    ) {
        self.url = url
        archive = .success(Archive(
            url: url, namedAfter: Object.self, encoder: encoder, decoder: decoder, durability: durability,
            lockTimeout: lockTimeout, caches: cachesRecords, evolution: .declared(by: Object.self)
        ))
    }

    public func readRecords<Result>(_ body: (StoreReader<Object>) throws -> Result) throws -> Result {
        try body(StoreReader(records: try archive.get().read()?.values ?? []))
    }

    public func writeRecords<Result>(_ body: (inout StoreWriter<Object>) throws -> Result) throws -> Result {
        let archive = try archive.get()
        // A store keeps its records as its writer holds them, not decoded from the file.
        return try archive.planWrite(remembering: .asGiven) { plan in
            // A store writes an array, whatever the file held.
            plan.writesSingleValue = false
            var writer = StoreWriter(plan: plan, location: archive.url)
            // Left empty while the block runs, so that changes to the records copy none of them.
            plan = WritePlan(records: [], identity: plan.identity)
            defer { plan = writer.plan }
            return try body(&writer)
        }
    }
}

// MARK: - Salvage

extension FileStore {
    /// Reads the file record by record and returns what decodes and what does not; writes nothing.
    ///
    /// - Throws: What ``Persistible/salvageFile()`` throws, such as ``PersistenceError/Reason/fileNotFound``.
    public func salvageFile() throws -> SalvagedRecords<Object> {
        try archive.get().salvage()
    }

    /// The records that reads skip and writes keep, as ``Persistible/unreadableRecords()`` returns them.
    ///
    /// - Throws: ``PersistenceError``, as the store's reads do.
    public func unreadableRecords() throws -> [UnreadableRecord] {
        try archive.get().unreadableRecords()
    }

    /// Renames the file, under the lock, to a name beside it that says why and when; the store is then empty.
    ///
    /// - Returns: The file's new location.
    /// - Throws: What ``Persistible/moveFileAside()`` throws, such as ``PersistenceError/Reason/fileNotFound``.
    @discardableResult
    public func moveFileAside() throws -> URL {
        try archive.get().moveAside()
    }
}

extension FileStore where Object: Persistible {
    /// A store in the type's own file, ``Persistible/archiveUrl``, with the type's encoder, decoder, durability,
    /// cache setting and lock timeout.
    public init() {
        url = Object.archiveUrl
        archive = Result { () throws(PersistenceError) in try Object.archive() }
    }
}
