import Foundation

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
