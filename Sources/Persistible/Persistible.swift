import Foundation

/// A type whose values persist as JSON in a file of their own.
///
/// Conform a `Codable & Hashable` type and it can save itself, and arrays of itself, to a file named after the
/// type, and load them back:
///
/// ```swift
/// struct Person: Codable, Hashable, Persistible {
///     let name: String
///     let age: Int
///     let school: String
///
///     static var fileName: String { "person_data" }
/// }
///
/// try [sam, amy].saveToFile()
/// let people = try Person.loadListFromFile()
/// ```
///
/// Every requirement has a default, so a conformance can be empty. The requirements are customization points:
/// because they are requirements and not just extension members, a type's own choice is honored even through
/// generic code.
///
/// **Saving, loading and deleting can be called from any thread and from several processes at once.**
/// See <doc:Guarantees> for what a save promises.
public protocol Persistible {
    /// The name of the file, without the `.json` extension.
    ///
    /// The default is the type's name: `Person` is stored in `Person.json`. A file name must not be empty, must
    /// not contain `/` or a NUL character, and must not be `.` or `..`; saving or loading with such a name throws
    /// ``PersistenceError/Reason/invalidFileName(_:)`` and touches nothing. It may be at most 200 bytes of UTF-8,
    /// so that the names of the file's temporaries and lock file fit beside it; a longer one throws
    /// ``PersistenceError/Reason/fileNameTooLong(name:limit:)``.
    static var fileName: String { get }

    /// The directory that holds the file.
    ///
    /// The default, for a type that does not declare its own, is the first of:
    /// 1. the directory given to ``withArchiveDirectory(_:operation:)`` in the current task, if any;
    /// 2. the `PERSISTIBLE_DIRECTORY` environment variable, when it holds an absolute path;
    /// 3. ``ArchiveDirectory/data(application:)``, the platform's directory for the program's data: the app's
    ///    Documents directory on iOS, tvOS, watchOS and visionOS; `~/Library/Application Support/<bundle identifier
    ///    or executable name>` on macOS; and `$XDG_DATA_HOME/<executable name>` (or
    ///    `~/.local/share/<executable name>`) on Linux and elsewhere.
    ///
    /// Return one of ``ArchiveDirectory``'s directories to choose another kind, such as
    /// ``ArchiveDirectory/configuration(application:)`` for settings, or to name the application's folder. A type
    /// that declares its directory keeps it, inside ``withArchiveDirectory(_:operation:)`` too.
    ///
    /// The directory and its parents are created by the first save.
    static var archiveDirectory: URL { get }

    /// The encoder that writes the file.
    ///
    /// The default pretty-prints with sorted keys and without escaping slashes, so that the file reads well and the
    /// same values always give the same bytes. Whatever the encoder, empty arrays and objects are written `[]` and
    /// `{}`, and the file ends with a newline. Return your own to choose, for example, ISO-8601 dates; return the
    /// same instance each time rather than a new one, since an encoder is not free to make.
    static var archiveEncoder: JSONEncoder { get }

    /// The decoder that reads the file. Pair it with ``archiveEncoder``, and return the same instance each time: the
    /// cache trusts what it decoded only for the decoder that decoded it.
    static var archiveDecoder: JSONDecoder { get }

    /// Whether a save waits for the data to reach the disk before it returns.
    ///
    /// The default is ``Durability/full``.
    static var archiveDurability: Durability { get }

    /// How long an operation that writes or deletes the file may wait for another writer to let go of its lock.
    ///
    /// The default, `nil`, waits as long as it takes, which is what keeps every save: a writer holds the lock only
    /// while it reads, merges and writes the file. Return a duration to bound the wait, for example when another
    /// program may lock the file and then stall; a save, delete or edit that waits that long throws
    /// ``PersistenceError/Reason/lockHeld(processID:)``, naming the process that holds the lock where the system
    /// can tell, and writes nothing. The wait polls the lock, at most every 50 milliseconds.
    ///
    /// ```swift
    /// struct Reading: Codable, Hashable, Persistible {
    ///     var celsius: Double
    ///     static var archiveLockTimeout: Duration? { .seconds(2) }
    /// }
    /// ```
    static var archiveLockTimeout: Duration? { get }

    /// Whether this process keeps the file's contents in memory between operations.
    ///
    /// The default is `true`: a save then costs encoding the new values and writing the file, and a load of an
    /// unchanged file costs a `stat`. Every operation first checks that the file is unchanged (same device, inode,
    /// size and modification time, to the nanosecond). A save by any process replaces the file with a new inode, so
    /// it is always seen. The memory is about the file's size plus the decoded values, plus a hash set of them after
    /// the first save.
    ///
    /// What the check can miss: another program that rewrites the file in place, or deletes it and writes a new one
    /// that gets the old inode number, leaving the size unchanged within one tick of the file system's clock. If
    /// other programs edit the file that way, return `false` to read the file on every operation instead. To free
    /// the memory now and then, call ``clearArchiveCache()``. Values of class types are never cached.
    static var cachesArchive: Bool { get }

    /// A value whose encoding fills the keys a stored record lacks, before the record is decoded.
    ///
    /// Swift's synthesized `Decodable` ignores property defaults, so a field added to a type makes every record
    /// saved before it fail to decode. Declare the defaults once and those records load:
    ///
    /// ```swift
    /// struct Task: Codable, Hashable, Persistible {
    ///     var title: String
    ///     var priority: Int = 0   // added in version 2
    ///
    ///     static var archiveDefaults: Task? { Task(title: "") }
    /// }
    /// ```
    ///
    /// Each key of the value's encoding that a stored record lacks is added with the encoding's value, at every
    /// depth of nested objects; a key the record has is never replaced, under any spelling the decoder reads as
    /// that key (a converted key, another Unicode normalization form), and arrays are taken as they are. A record
    /// that lacks a key is decoded through ``archiveMigrations`` first, and filled only when no older type reads
    /// it. Loads fill in memory and write nothing: the file keeps its bytes until a write changes it, and the next
    /// write stores the filled records in the current format. Records that lack no key cost one scan of their bytes.
    ///
    /// The default is `nil`: no defaults. See <doc:ModelEvolution>.
    static var archiveDefaults: Self? { get }

    /// How to read records written by earlier versions of the type, newest first.
    ///
    /// Each record is decoded as the current type, then as each migration's type in this order; the first that
    /// reads it wins. A record that lacks a key of ``archiveDefaults`` is decoded as each migration's type first, and
    /// as the current type with the defaults filled last, so that a default never stands in for a key an older type
    /// reads. A record that none reads makes the operation throw
    /// ``PersistenceError/Reason/unreadable(codingPath:detail:)`` with a ``PersistenceError/versionMismatch``
    /// saying what each version said, and nothing is written; unless ``archiveSkipsUnreadableRecords`` says to skip
    /// it and keep it as stored.
    ///
    /// ```swift
    /// static var archiveMigrations: [ArchiveMigration<Task>] {
    ///     [.from(TaskV1.self) { old in Task(title: old.name) }]
    /// }
    /// ```
    ///
    /// The default is none. See ``ArchiveMigration`` and <doc:ModelEvolution>.
    static var archiveMigrations: [ArchiveMigration<Self>] { get }

    /// Whether reads skip the records of an array that no version of the type reads, and writes keep them as stored.
    ///
    /// A newer version of an app may write a record this version cannot read: an enum case it added, a field it made
    /// required. By default such a record makes every operation throw, so one record written by a newer version
    /// locks this version out of the whole file. Return `true` and this version works on the records it reads:
    /// loads return them and skip the others, and every write (saves, updates, removals, ``overwriteFile()``, a
    /// ``FileStore``'s `replaceAll` and `deleteAll`) keeps each skipped record byte for byte, where it stood among
    /// its neighbours, for the version that wrote it. ``unreadableRecords()`` says how many there are, where, and
    /// what each version said about them, so that the app can tell its user.
    ///
    /// ```swift
    /// struct Todo: Codable, Hashable, Identifiable, Persistible {
    ///     var id: String
    ///     var state: State   // version 2 adds `.archived`
    ///     static var archiveSkipsUnreadableRecords: Bool { true }
    /// }
    ///
    /// let todos = try Todo.loadListFromFile()
    /// let kept = try Todo.unreadableRecords()
    /// if !kept.isEmpty { print("\(kept.count) written by a newer version, kept as they are") }
    /// ```
    ///
    /// Only records that are valid JSON and that neither the type, after ``archiveDefaults``, nor any of
    /// ``archiveMigrations`` reads are skipped. A file that is not JSON (damaged, cut short) still throws and is
    /// never written over, and so does a file that holds a single value no version reads: there is nothing left
    /// to work on. A write that would store a value with the identity of a skipped record (an `Identifiable` type
    /// whose `id` is `Decodable` and can be read from the record's bytes) throws
    /// ``PersistenceError/Reason/unreadable(codingPath:detail:)`` with that record's
    /// ``PersistenceError/versionMismatch`` and writes nothing: the version that reads both would keep only one. So
    /// a type that skips records should not make new identities from the records it reads (the largest `id` plus
    /// one), but give new records identities no other version can have taken, such as `UUID`s. A skipped record
    /// whose `id` cannot be read is not checked. To drop skipped records, delete the file or move it aside with
    /// ``moveFileAside()``.
    ///
    /// The default is `false`: loads return every record or throw. See <doc:ModelEvolution>.
    static var archiveSkipsUnreadableRecords: Bool { get }
}

/// The format files are written in unless a type or store chooses another.
public enum ArchiveFormat {
    /// Pretty-printed with sorted keys and slashes unescaped, so that the file reads well and the same values always
    /// give the same bytes.
    ///
    /// One shared instance rather than one per call: a `JSONEncoder` is `Sendable`, and making one costs more than
    /// a small save.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A plain decoder.
    public static let decoder = JSONDecoder()
}

extension Persistible {
    public static var fileName: String { String(describing: self) }

    public static var archiveDirectory: URL { ArchiveLocation.defaultDirectory }

    public static var archiveEncoder: JSONEncoder { ArchiveFormat.encoder }

    public static var archiveDecoder: JSONDecoder { ArchiveFormat.decoder }

    public static var archiveDurability: Durability { .full }

    public static var archiveLockTimeout: Duration? { nil }

    public static var cachesArchive: Bool { true }

    public static var archiveDefaults: Self? { nil }

    public static var archiveMigrations: [ArchiveMigration<Self>] { [] }

    public static var archiveSkipsUnreadableRecords: Bool { false }
}
