import Foundation
import Persistible

/// Saving n records at once onto a missing file, and loading them back, against Foundation alone.
struct BulkWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run(n: Int) throws -> [BulkResult] {
        let repetitions = plan.bulkRepetitions(n: n)
        let records = (0..<n).map(Record.init(index:))
        let noSyncRecords = (0..<n).map(NoSyncRecord.init(index:))
        let referenceFile = sandbox.file("records-foundation.json")

        var saveDurable = Samples()
        var saveNoSync = Samples()
        var saveReference = Samples()
        var saveReferenceFlushed = Samples()
        for round in 0..<repetitions {
            // Every contender starts from a missing file, removed outside the timed region.
            try Record.deleteFile()
            try NoSyncRecord.deleteFile()
            try interleave(round: round, [
                { saveDurable.add(try Stopwatch.seconds { try records.saveToFile() }) },
                { saveNoSync.add(try Stopwatch.seconds { try noSyncRecords.saveToFile() }) },
                {
                    // Both references write the same file, so each removes it first.
                    Sandbox.removeFile(referenceFile)
                    saveReference.add(try Stopwatch.seconds { try FoundationReference.save(records, to: referenceFile) })
                },
                {
                    Sandbox.removeFile(referenceFile)
                    saveReferenceFlushed.add(try Stopwatch.seconds {
                        try FoundationReference.save(records, to: referenceFile, flushingDirectory: true)
                    })
                },
            ])
        }

        var loadCold = Samples()
        var loadWarm = Samples()
        var loadReference = Samples()
        // Both read the package's file, so they read the same bytes from the same page cache.
        let file = Record.archiveUrl
        for round in 0..<repetitions {
            try interleave(round: round, [
                {
                    Record.clearArchiveCache()
                    var cold: [Record] = []
                    var warm: [Record] = []
                    loadCold.add(try Stopwatch.seconds { cold = try Record.loadListFromFile() })
                    loadWarm.add(try Stopwatch.seconds { warm = try Record.loadListFromFile() })
                    try expect(
                        cold.count == n && warm.count == n, "bulk",
                        "the package loaded \(cold.count), \(warm.count) of \(n) records"
                    )
                },
                {
                    var loaded: [Record] = []
                    loadReference.add(try Stopwatch.seconds { loaded = try FoundationReference.load(from: file) })
                    try expect(loaded.count == n, "bulk", "Foundation loaded \(loaded.count) of \(n) records")
                },
            ])
        }

        try Record.deleteFile()
        try NoSyncRecord.deleteFile()
        Sandbox.removeFile(referenceFile)
        Record.clearArchiveCache()

        return [
            BulkResult(operation: .saveDurable, n: n, package: saveDurable, reference: saveReference),
            BulkResult(
                operation: .saveDurableFlushedReference, n: n, package: saveDurable, reference: saveReferenceFlushed
            ),
            BulkResult(operation: .saveNoSync, n: n, package: saveNoSync, reference: saveReference),
            BulkResult(operation: .loadCold, n: n, package: loadCold, reference: loadReference),
            BulkResult(operation: .loadWarm, n: n, package: loadWarm, reference: loadReference),
        ]
    }
}

/// The reference for bulk saves and loads: what an app would write with Foundation alone, in the package's format.
///
/// `.atomic` gives the same all-or-nothing replacement as the package, without the lock. It flushes the temporary
/// file before renaming it (seen with `strace` on Linux) but not the directory, so a durable save is compared with a
/// little less durability than it gives: the ratio shows what the package's safety and bookkeeping cost on top of
/// encoding and writing.
enum FoundationReference {
    /// Encodes and writes the records; with `flushingDirectory`, then flushes the directory as a durable save
    /// does, so that the rename itself survives a power loss.
    static func save(_ records: [Record], to url: URL, flushingDirectory: Bool = false) throws {
        let data = try Record.archiveEncoder.encode(records)
        try data.write(to: url, options: .atomic)
        if flushingDirectory {
            let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY)
            guard directory >= 0 else { throw CocoaError(.fileWriteUnknown) }
            defer { close(directory) }
            guard fsync(directory) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    static func load(from url: URL) throws -> [Record] {
        try Record.archiveDecoder.decode([Record].self, from: Data(contentsOf: url))
    }
}
