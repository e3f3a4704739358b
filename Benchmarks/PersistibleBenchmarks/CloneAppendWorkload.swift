import Foundation
import Persistible

/// Appending one new value to a file of n records on one file system, against what an append must cost there at
/// least and against SQLite.
///
/// On a file system that clones (XFS with reflink) the package writes only the file's new end; elsewhere (ext4) it
/// writes the whole file. References, each interleaved with the package: the durable rewrite of the whole file
/// (`IOFloor`, in a phase of its own), the in-place floor (`pwrite` of the same new end onto the file itself and
/// `fdatasync`, which no atomic save can beat), the bare clone sequence (`CloneSequence`, where the file system
/// clones: what the package's append does, without the package), and one durable SQLite insert in WAL and in
/// rollback-journal mode.
struct CloneAppendWorkload {
    let volume: String
    let directory: URL
    let plan: Plan

    func run(n: Int) throws -> CloneAppendResult {
        let repetitions = plan.cloneAppendRepetitions
        let seed = try Record.archiveEncoder.encode((0..<n).map(Record.init(index:)))
        let rewriteFile = directory.appendingPathComponent("floor-rewrite.json")
        let inPlaceFile = directory.appendingPathComponent("floor-in-place.json")
        let cloneFile = directory.appendingPathComponent("floor-clone.json")
        for file in [Record.archiveUrl, rewriteFile, inPlaceFile, cloneFile] {
            try seed.write(to: file)
        }
        let inPlace = try InPlaceFloor(path: inPlaceFile.path)
        defer { inPlace.close() }
        let bareClone = try CloneSequence(path: cloneFile.path, holding: seed)

        var sqlite: [SQLiteReference.JournalMode: SQLiteReference] = [:]
        var sqliteSkipped: String?
        do {
            for mode in SQLiteReference.JournalMode.allCases {
                let database = directory.appendingPathComponent("records-\(mode.rawValue).sqlite")
                sqlite[mode] = try SQLiteReference(database: database, mode: mode, records: n)
            }
        } catch {
            sqliteSkipped = "\(error)"
            sqlite = [:]
        }

        let indices = FreshIndices(from: n)
        let append = { _ = try Record(index: indices.take()).saveToFile() }
        let coldAppend = {
            Record.clearArchiveCache()
            _ = try Record(index: indices.take()).saveToFile()
        }
        let rewrite = { try IOFloor.rewrite(seed, atPath: rewriteFile.path, durable: true) }
        let writeInPlace = { try inPlace.append(Record(index: indices.take())) }
        let cloneBare = {
            try bareClone?.append(InPlaceFloor.tail(appending: Record(index: indices.take())), replacing: 2) ?? ()
        }

        // The first save decodes the file and remembers it, as an app's first save does; later ones are the steady
        // state. The cold rows measure that first save on its own.
        try append()
        try rewrite()
        try writeInPlace()
        try cloneBare()

        var result = CloneAppendResult(volume: volume, n: n, sqliteSkipped: sqliteSkipped)
        var coldAppends = 0
        // The whole-file rewrite has a phase of its own, beside a second series of appends: at 100,000 records it
        // leaves 10 MB to write back after every round, which would slow whatever ran next in the first phase.
        for round in 0..<repetitions {
            try interleave(round: round, [
                { result.packageBesideRewrite.add(try Stopwatch.seconds(append)) },
                { result.rewriteFloor.add(try Stopwatch.seconds(rewrite)) },
            ])
        }
        Sandbox.removeFile(rewriteFile)
        // What the rewrites left in the page cache reaches the disk before the next phase is timed.
        sync()
        for round in 0..<repetitions {
            var contenders: [() throws -> Void] = [
                { result.package.add(try Stopwatch.seconds(append)) },
                { result.inPlaceFloor.add(try Stopwatch.seconds(writeInPlace)) },
            ]
            if bareClone != nil {
                contenders.append { result.bareClone.add(try Stopwatch.seconds(cloneBare)) }
            }
            if let wal = sqlite[.wal], let delete = sqlite[.delete] {
                contenders.append { result.sqliteWAL.add(try wal.insert()) }
                contenders.append { result.sqliteDelete.add(try delete.insert()) }
            }
            if round < plan.coldAppendRepetitions {
                contenders.append { result.packageCold.add(try Stopwatch.seconds(coldAppend)) }
                coldAppends += 1
            }
            try interleave(round: round, contenders)
        }

        // A contender that silently failed to append would look fast; each must hold every record it was given.
        let packageCount = try Record.loadListFromFile().count
        guard packageCount == n + 1 + 2 * repetitions + coldAppends else {
            throw WorkloadFailure(description: "append on \(volume): the file holds \(packageCount) records")
        }
        for (mode, reference) in sqlite {
            let count = try reference.finish()
            guard count == n + repetitions else {
                throw WorkloadFailure(description: "sqlite \(mode.rawValue) on \(volume): \(count) records")
            }
        }
        try Record.deleteFile()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasPrefix("floor-") || name.hasPrefix("records-") {
            Sandbox.removeFile(directory.appendingPathComponent(name))
        }
        return result
    }
}
