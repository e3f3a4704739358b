#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One JSON file of `Value`s: the one place that decides *how* the operations and stores save *what* they describe.
struct Archive<Value: Codable & Hashable> {
    let url: URL
    let path: String
    /// The type errors name; its name is worked out only when one does.
    let namedType: Any.Type
    let encoder: JSONEncoder
    let decoder: JSONDecoder
    let durability: Durability
    let lockTimeout: Duration?
    let evolution: ArchiveEvolution<Value>
    let cacheKey: ArchiveCache.Key?

    init(
        url: URL, path: String? = nil, namedAfter namedType: Any.Type, encoder: JSONEncoder, decoder: JSONDecoder,
        durability: Durability, lockTimeout: Duration? = nil, caches: Bool, evolution: ArchiveEvolution<Value> = .none
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

    var typeName: String { runtimeTypeName(namedType) }

    /// Whether the scanner may find records in the file, which splicing and keeping records' bytes rely on: in
    /// JSON5 a comment can sit where it looks.
    var scansStrictJSON: Bool { !decoder.allowsJSON5 }
}

extension Persistible {
    /// The file that holds the type's values: ``fileName`` with a `.json` extension, in ``archiveDirectory``.
    /// Reading it touches nothing on disk.
    public static var archiveUrl: URL {
        ArchiveLocation.address(of: self, in: archiveDirectory, named: fileName).url
    }

    static func archive() throws(PersistenceError) -> Archive<Self> where Self: Codable & Hashable {
        try archive(of: Self.self, caches: cachesArchive, evolution: .declared(Self.self))
    }

    /// The archive of `Value`s that the type's requirements describe, if ``fileName`` names a file whose name fits
    /// every file written beside it.
    static func archive<Value>(
        of type: Value.Type, caches: Bool, evolution: ArchiveEvolution<Value>
    ) throws(PersistenceError) -> Archive<Value> {
        let name = fileName
        let (url, path) = ArchiveLocation.address(of: self, in: archiveDirectory, named: name)
        let archive = Archive(
            url: url, path: path, namedAfter: self, encoder: archiveEncoder, decoder: archiveDecoder,
            durability: archiveDurability, lockTimeout: archiveLockTimeout, caches: caches, evolution: evolution
        )
        if ["", ".", ".."].contains(name) || name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 }) {
            throw archive.failure(.invalidFileName(name))
        }
        let limit = AtomicFile.nameLimit - ".json".utf8.count
        guard name.utf8.count <= limit else { throw archive.failure(.fileNameTooLong(name: name, limit: limit)) }
        return archive
    }

    /// Forgets what this process remembers of the file (<doc:Guarantees#The-in-process-cache>), to give its memory
    /// back, for example after loading a large file once; correctness never needs it.
    public static func clearArchiveCache() {
        ArchiveCache.remove(path: archiveUrl.path)
    }
}

/// Runs `operation` with `directory` as the ``Persistible/archiveDirectory`` of every type that does not declare
/// its own, in the current task and the tasks it starts, but not in a `Task.detached` or another thread (see
/// <doc:Concurrency#Give-threads-and-detached-tasks-their-directory-explicitly>).
///
/// ```swift
/// try withArchiveDirectory(temporaryDirectory) { try sam.saveToFile() }
/// ```
@discardableResult
public func withArchiveDirectory<Result>(_ directory: URL, operation: () throws -> Result) rethrows -> Result {
    try ArchiveLocation.$scopedDirectory.withValue(directory, operation: operation)
}

/// The asynchronous form of ``withArchiveDirectory(_:operation:)``.
@discardableResult
public func withArchiveDirectory<Result>(
    _ directory: URL, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> Result
) async rethrows -> Result {
    try await ArchiveLocation.$scopedDirectory.withValue(directory, operation: operation)
}

/// Where files go when their type does not say, and each type's archive URL and path.
enum ArchiveLocation {
    @TaskLocal static var scopedDirectory: URL?

    /// `PERSISTIBLE_DIRECTORY` is read on each use, so that a change made by the process is seen.
    static var defaultDirectory: URL {
        if let directory = scopedDirectory { return directory }
        let environment = PlatformDirectory.absolutePath(inEnvironment: "PERSISTIBLE_DIRECTORY")
        return environment.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? platformDirectory
    }

    /// Worked out once per process, since every operation of a type with the default directory asks for it.
    private static let platformDirectory = ArchiveDirectory.data()

    /// Kept for the directory and file name they were made from: making them costs a save more than the rest of its
    /// work in memory, and they seldom change. A list, as few as types are: a dictionary's type would cost the first
    /// call a search of every conformance for its key's `Hashable`, 0.1 ms of a command-line call.
    private static let addresses = Locked(
        [(type: ObjectIdentifier, directory: URL, name: String, url: URL, path: String)]()
    )

    static func address(of type: Any.Type, in directory: URL, named name: String) -> (url: URL, path: String) {
        let key = ObjectIdentifier(type)
        let kept = addresses.withLock { $0.first { $0.type == key } }
        if let kept, kept.name == name, kept.directory == directory { return (kept.url, kept.path) }
        let url = directory.appendingPathComponent(name, isDirectory: false).appendingPathExtension("json")
        addresses.withLock { addresses in
            addresses.removeAll { $0.type == key }
            addresses.append((key, directory, name, url, url.path))
        }
        return (url, url.path)
    }
}

// MARK: - Evolution

/// What a type declares about its earlier versions (defaults, migrations, whether to skip records no version reads),
/// read when a file is decoded, not when an archive is made: most operations decode nothing.
struct ArchiveEvolution<Value: Codable>: Sendable {
    fileprivate typealias Declarations = (
        defaults: (any Encodable)?, migrations: [ArchiveMigration<Value>], skipsUnreadable: Bool
    )

    private let declarations: (@Sendable () -> Declarations)?
    /// The encoding of a settings call's default value: it fills what a record still lacks after the declarations.
    private(set) var fallback: Data?

    static var none: Self { Self(declarations: nil) }

    func filling(from encoding: Data) -> Self {
        Self(declarations: declarations, fallback: encoding)
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
        (type as? any Persistible.Type).map { declared($0) } ?? .none
    }

    static func declared<Declaring: Persistible>(_ type: Declaring.Type) -> Self {
        Self(declarations: Declared<Declaring, Value>().read)
    }
}

/// A generic type rather than a closure, so that no metatype is captured.
private struct Declared<Declaring: Persistible, Value: Codable>: Sendable {
    @Sendable func read() -> ArchiveEvolution<Value>.Declarations {
        (
            defaults: Declaring.archiveDefaults.flatMap { $0 as? any Encodable },
            migrations: Declaring.archiveMigrations as? [ArchiveMigration<Value>] ?? [],
            skipsUnreadable: Declaring.archiveSkipsUnreadableRecords
        )
    }
}
