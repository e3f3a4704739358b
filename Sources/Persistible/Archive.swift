import Foundation

/// One JSON file of `Value`s: the one place that decides *how* the operations and stores save *what* they describe.
struct Archive<Value: Codable & Hashable> {
    let url: URL
    let path: String
    /// The type errors name; its name is worked out only when one does.
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

    /// Whether the scanner may find records in the file, which splicing and keeping records' bytes rely on: in
    /// JSON5 a comment can sit where it looks.
    var scansStrictJSON: Bool { !decoder.allowsJSON5 }
}

/// What a type declares about its earlier versions (defaults, migrations, whether to skip records no version reads).
///
/// Read when a file is decoded, not when an archive is made: most operations decode nothing.
struct ArchiveEvolution<Value: Codable>: Sendable {
    private let declarations: (@Sendable () -> Declarations)?
    /// The encoding of a settings call's default value: it fills what a record still lacks after the declarations.
    private(set) var fallback: Data?

    fileprivate struct Declarations {
        var defaults: (any Encodable)?
        var migrations: [ArchiveMigration<Value>]
        var skipsUnreadable: Bool
    }

    static var none: Self { Self(declarations: nil) }

    func filling(from encoding: Data) -> Self {
        var filling = self
        filling.fallback = encoding
        return filling
    }

    var migrations: [ArchiveMigration<Value>] { declarations?().migrations ?? [] }

    var isEmpty: Bool {
        guard fallback == nil, let declared = declarations?() else { return fallback == nil }
        return declared.defaults == nil && declared.migrations.isEmpty
    }

    var skipsUnreadable: Bool { declarations?().skipsUnreadable ?? false }

    func encodedDefaults(with encoder: JSONEncoder) throws -> Data? {
        try declarations?().defaults.map { try encoder.encode($0) }
    }

    /// What `type` declares when it is ``Persistible``, looked up at run time so that generic code honors it too.
    static func declared(by type: Value.Type) -> Self {
        guard let persistible = type as? any Persistible.Type else { return .none }
        return declared(persistible)
    }

    private static func declared<Declaring: Persistible>(_ type: Declaring.Type) -> Self {
        Self(declarations: Declared<Declaring, Value>().read)
    }
}

extension ArchiveEvolution where Value: Persistible {
    static var declared: Self { declared(Value.self) }
}

/// A generic type rather than a closure, so that no metatype is captured.
private struct Declared<Declaring: Persistible, Value: Codable>: Sendable {
    @Sendable func read() -> ArchiveEvolution<Value>.Declarations {
        ArchiveEvolution<Value>.Declarations(
            defaults: Declaring.archiveDefaults.flatMap { $0 as? any Encodable },
            migrations: Declaring.archiveMigrations as? [ArchiveMigration<Value>] ?? [],
            skipsUnreadable: Declaring.archiveSkipsUnreadableRecords
        )
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
