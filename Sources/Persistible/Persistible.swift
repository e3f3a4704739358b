#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type whose values persist as JSON in a file of their own.
///
/// Conform a `Codable & Hashable` type and it can save itself, and arrays of itself, to a file named after the
/// type, and load them back (see <doc:GettingStarted>). Every requirement has a default, and a type's own choices
/// are honored even through generic code.
///
/// **Saving, loading and deleting can be called from any thread and from several processes at once**, under the
/// rules of <doc:Concurrency>. See <doc:Guarantees> for what a save promises, and ``PersistenceError`` for the
/// reasons any operation may throw.
public protocol Persistible {
    /// The name of the file without its `.json` extension; by default the type's name, so `Person` is in `Person.json`
    /// (``PersistenceError/Reason/invalidFileName(_:)`` says which names are refused).
    static var fileName: String { get }

    /// The directory that holds the file, which the first save creates with its parents; by default the one given to
    /// ``withArchiveDirectory(_:operation:)``, else `PERSISTIBLE_DIRECTORY`, else
    /// ``ArchiveDirectory/data(application:)`` (see <doc:GettingStarted#Find-the-file>).
    static var archiveDirectory: URL { get }

    /// The encoder that writes the file; by default ``ArchiveFormat/encoder``. Return the same instance each time
    /// (see <doc:Concurrency>). Empty arrays and objects are written `[]` and `{}`, and the file ends with a newline.
    static var archiveEncoder: JSONEncoder { get }

    /// The decoder that reads the file, paired with ``archiveEncoder``; by default ``ArchiveFormat/decoder``. Return
    /// the same instance each time (see <doc:Concurrency>).
    static var archiveDecoder: JSONDecoder { get }

    /// Whether a save waits for the data to reach the disk before it returns; by default ``Durability/full``.
    static var archiveDurability: Durability { get }

    /// How long a write or delete may wait for another writer's lock, after which it throws
    /// ``PersistenceError/Reason/lockHeld(processID:)``; by default 30 seconds; `nil` waits as long as it takes
    /// (see <doc:Guarantees#Locking>).
    static var archiveLockTimeout: Duration? { get }

    /// Whether this process keeps the file's contents in memory between operations; by default `true`. Return
    /// `false` if other programs rewrite the file in place (see <doc:Guarantees#The-in-process-cache>).
    static var cachesArchive: Bool { get }

    /// A value whose encoding fills the keys a stored record lacks, at every depth, before the record is decoded;
    /// by default `nil`. Declare here the default of a field added to the type (see <doc:ModelEvolution>).
    static var archiveDefaults: Self? { get }

    /// How to read records written by earlier versions of the type, newest first, tried in order after the current
    /// type; by default none (see <doc:ModelEvolution>).
    static var archiveMigrations: [ArchiveMigration<Self>] { get }

    /// Whether reads skip the records of an array that no version of the type reads; by default `false`: such a
    /// record makes every load throw. Writes keep such records byte for byte either way (see <doc:ModelEvolution>).
    static var archiveSkipsUnreadableRecords: Bool { get }
}

/// The format files are written in unless a type or store chooses another.
public enum ArchiveFormat {
    /// Pretty-printed with sorted keys and slashes unescaped, so that the file reads well and the same values always
    /// give the same bytes.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A plain decoder.
    public static let decoder = JSONDecoder()
}

extension Persistible {
    public static var fileName: String { runtimeTypeName(self) }

    public static var archiveDirectory: URL { ArchiveLocation.defaultDirectory }

    public static var archiveEncoder: JSONEncoder { ArchiveFormat.encoder }

    public static var archiveDecoder: JSONDecoder { ArchiveFormat.decoder }

    public static var archiveDurability: Durability { .full }

    public static var archiveLockTimeout: Duration? { defaultLockTimeout }

    public static var cachesArchive: Bool { true }

    public static var archiveDefaults: Self? { nil }

    public static var archiveMigrations: [ArchiveMigration<Self>] { [] }

    public static var archiveSkipsUnreadableRecords: Bool { false }
}

/// What `String(describing:)` writes for a type, without the searches of every conformance it makes first (a quarter
/// of a millisecond of a command-line call). Never inlined: where it knows the type, the optimizer folds the name at
/// compile time, and for a private type into another name than the one read at run time.
@inline(never)
func runtimeTypeName(_ type: Any.Type) -> String {
    _typeName(type, qualified: false)
}
