import Foundation

enum BulkOperation: String, CaseIterable {
    case saveDurable = "save, durable"
    /// The same durable saves, against a reference that also flushes the directory after its rename.
    case saveDurableFlushedReference = "save, durable, reference + fsync dir"
    case saveNoSync = "save, no-sync"
    case loadCold = "load, cold"
    case loadWarm = "load, warm"

    var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// One bulk operation at one size against Foundation alone.
struct BulkResult {
    var operation: BulkOperation
    var n: Int
    var package: Samples
    var reference: Samples
}

/// One append onto a file of `n` records, by every contender.
struct AppendResult {
    var n: Int
    var packageDurable: Samples
    var packageNoSync: Samples
    /// The article never flushes, so one measurement serves as the reference for both durabilities.
    var article: Samples
    var floorDurable: Samples
    var floorNoSync: Samples
    /// An `Identifiable` record in the middle of the file edited and saved in place, no-sync: a whole rewrite.
    var editNoSync: Samples
    /// A durable save of a value the file holds already: nothing to write, but the file and directory flushed.
    var unchangedDurable: Samples
}

/// Several processes appending durably to one file, against the same appends made by one process alone.
struct ContentionResult {
    var processes: Int
    var appendsPerProcess: Int
    var concurrent: Samples
    var sequential: Samples
    /// The fewest of the appended records that any round found in its file afterwards.
    var fewestFound: Int

    var appends: Int { processes * appendsPerProcess }
    var lost: Int { appends - fewestFound }
}

/// One query over n records: the package on two stores against `Array.filter` and `sorted`.
struct StoreQueryResult {
    var n: Int
    /// How many records the query returned.
    var selected: Int
    var fileStore: Samples
    var memoryStore: Samples
    var reference: Samples
}

/// Inserting new records into a file that holds `records`: all in one write block, against one insert each.
struct StoreWriteResult {
    var records: Int
    var changes: Int
    var block: Samples
    var singles: Samples
}

/// One durable append onto a file of `n` records on one file system, with the floors and SQLite beside it.
struct CloneAppendResult {
    var volume: String
    var n: Int
    /// Interleaved with the in-place floor and SQLite.
    var package = Samples()
    /// Interleaved with the whole-file rewrite, in a phase of its own.
    var packageBesideRewrite = Samples()
    /// The first append after the cache was cleared, as a process's first save: it decodes the file.
    var packageCold = Samples()
    var rewriteFloor = Samples()
    var inPlaceFloor = Samples()
    /// The bare clone sequence, where the file system clones.
    var bareClone = Samples()
    var sqliteWAL = Samples()
    var sqliteDelete = Samples()
    /// Why SQLite did not run, if it did not.
    var sqliteSkipped: String?
}

/// Appends onto a file grown by appends, on a file system that clones.
struct GrownFileResult {
    /// The records the file held before it grew.
    var seed: Int
    /// The no-sync appends that grew it.
    var appends: Int
    /// The first and the last of those appends.
    var first = Samples()
    var last = Samples()
    /// The extents that held the file once it had grown, and after the durable appends.
    var extents = 0
    var extentsAfter = 0
    /// Durable appends onto the grown file, interleaved with the in-place floor.
    var package = Samples()
    var inPlaceFloor = Samples()
}

/// How soon a watch sees another process's save.
struct WatchResult {
    /// Saves far enough apart that each is the first change after a quiet spell.
    var quiet: LatencySamples
    /// Saves back to back, with no coalescing.
    var burst: LatencySamples
    var spacing: Double
}

/// From a save returning in the child, and from asking the child to save, to the watch's element.
struct LatencySamples {
    var fromReturn: Samples
    var fromRequest: Samples
}

/// Model evolution at n records: cold loads with and without defaults to fill, and a one-record update against
/// the I/O floor.
struct EvolutionResult {
    var n: Int
    var loadComplete = Samples()
    var loadDeclaringDefaults = Samples()
    var loadFillingDefaults = Samples()
    var updateOne = Samples()
    var rewriteFloor = Samples()
}

/// Calls of a command-line tool on a file of `n` records, each in a process of its own that reads the file cold,
/// beside Foundation alone, the `sqlite3` shell, an append in a process that has the file loaded, and the floors.
struct ColdCommandResult {
    var n: Int
    var add = Samples()
    var edit = Samples()
    var count = Samples()
    var lookup = Samples()
    var foundationDecode = Samples()
    var inProcessAppend = Samples()
    var sqliteInsert = Samples()
    var helloFoundation = Samples()
    var helloEssentials = Samples()
}

/// The tool loading a file of one record, against the programs that decode one small value.
struct ColdOneRecordResult {
    var toolLoad = Samples()
    var helloEssentials = Samples()
    var helloFoundation = Samples()
}

/// A cold load of a file of n records of one document shape, against Foundation decoding the same file.
struct ShapeResult {
    var shape: String
    var n: Int
    var fileBytes: Int
    var package: Samples
    var reference: Samples
}

struct Results {
    var plan: Plan
    var bulk: [BulkResult] = []
    var append: [AppendResult] = []
    var contention: ContentionResult?
    var storeQuery: [StoreQueryResult] = []
    var storeWrite: [StoreWriteResult] = []
    var cloneAppend: [CloneAppendResult] = []
    /// The file systems the clone workload could not run on, and why.
    var cloneAppendSkipped: [String: String] = [:]
    var grownFile: GrownFileResult?
    var evolution: [EvolutionResult] = []
    var watch: WatchResult?
    var coldCommand: [ColdCommandResult] = []
    var coldOneRecord: ColdOneRecordResult?
    /// Why the command-line section did not run, if it did not.
    var coldCommandSkipped: String?
    var shapes: [ShapeResult] = []
    var started = Date()
    var elapsedSeconds: Double = 0
}
