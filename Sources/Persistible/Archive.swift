import Foundation

/// One JSON file of `Value`s and the operations on it: read without a lock, change under the lock, write atomically.
///
/// The public API and the stores describe *what* to save; this type is the one place that decides *how*.
struct Archive<Value: Codable & Hashable> {
    let url: URL
    /// `url.path`, worked out once: every operation needs it, some several times.
    let path: String
    /// The type the file is named after in errors: its name is worked out only when an error needs it.
    let namedType: Any.Type
    let encoder: JSONEncoder
    let decoder: JSONDecoder
    let durability: Durability
    /// How long a write waits for the lock; `nil` waits as long as it takes.
    let lockTimeout: Duration?
    /// The defaults and migrations that decoding applies.
    let evolution: ArchiveEvolution<Value>
    /// Where this archive's state is cached, or `nil` if it is not.
    let cacheKey: ArchiveCache.Key?

    /// - Parameter path: `url.path`, if the caller has it already.
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

    /// The name of the type the file is named after in errors.
    var typeName: String { String(describing: namedType) }

    /// Whether the file is read as strict JSON, so that the scanner may find its records: what appends that splice
    /// bytes, reads that decode only what another writer appended and rewrites that keep records' bytes rely on.
    /// With JSON5, a comment can sit where they look for the end of a value.
    var scansStrictJSON: Bool {
        !decoder.allowsJSON5
    }
}

extension Persistible where Self: Codable & Hashable {
    /// The archive described by the type's requirements, after validating its file name.
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

// MARK: - Cache

extension Persistible {
    /// Forgets what this process remembers of the file, freeing its memory; the next operation reads the file.
    ///
    /// There is never a need to call it for correctness: every operation checks the file before trusting what it
    /// remembers. Call it to give memory back, for example after loading a large file once.
    public static func clearArchiveCache() {
        ArchiveCache.remove(path: archiveUrl.path)
    }
}
