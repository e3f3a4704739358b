import Foundation

/// One JSON file of `Value`s: the one place that decides *how* the operations and stores save *what* they describe.
struct Archive<Value: Codable & Hashable> {
    let url: URL
    /// `url.path`, worked out once: every step needs it.
    let path: String
    /// The type the file is named after in errors; its name is worked out only when an error needs it.
    let namedType: Any.Type
    let encoder: JSONEncoder
    let decoder: JSONDecoder
    let durability: Durability
    /// How long a write waits for the lock; `nil` waits as long as it takes.
    let lockTimeout: Duration?
    let evolution: ArchiveEvolution<Value>
    /// Where this archive's snapshot is cached, or `nil` if it is not.
    let cacheKey: ArchiveCache.Key?

    init(
        url: URL,
        path: String? = nil,
        namedAfter namedType: Any.Type,
        encoder: JSONEncoder,
        decoder: JSONDecoder,
        durability: Durability,
        lockTimeout: Duration? = nil,
        caches: Bool,
        evolution: ArchiveEvolution<Value> = .none
    ) {
        self.evolution = evolution
        self.url = url
        self.path = path ?? url.path
        self.namedType = namedType
        self.encoder = encoder
        self.decoder = decoder
        self.durability = durability
        self.lockTimeout = lockTimeout
        cacheKey = caches ? ArchiveCache.key(path: self.path, type: Value.self) : nil
    }

    var typeName: String { String(describing: namedType) }

    /// Whether the scanner may find records in the file: splicing appends, decoding only what another writer
    /// appended and keeping records' bytes rely on it. In JSON5 a comment can sit where they look.
    var scansStrictJSON: Bool {
        !decoder.allowsJSON5
    }
}

extension Persistible where Self: Codable & Hashable {
    /// The archive the type's requirements describe, after validating its file name.
    static func archive() throws(PersistenceError) -> Archive<Self> {
        let url = try validatedArchiveUrl()
        return Archive(
            url: url,
            path: ArchiveAddress.path(of: url, for: self),
            namedAfter: self,
            encoder: archiveEncoder,
            decoder: archiveDecoder,
            durability: archiveDurability,
            lockTimeout: archiveLockTimeout,
            caches: cachesArchive,
            evolution: .declared
        )
    }
}

extension Persistible {
    /// Forgets what this process remembers of the file, freeing its memory; the next operation reads the file.
    ///
    /// There is never a need to call it for correctness: every operation checks the file before trusting what it
    /// remembers. Call it to give memory back, for example after loading a large file once.
    public static func clearArchiveCache() {
        ArchiveCache.remove(path: archiveUrl.path)
    }
}
