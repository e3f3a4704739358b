import Foundation
import Persistible

/// A record type that declares defaults, as a type does once a field was added to it.
struct DefaultedRecord: BenchmarkRecord, Identifiable, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records-defaulted" }
    static var archiveDefaults: DefaultedRecord? { DefaultedRecord(id: 0, name: "", age: 0, school: "") }
}

/// The same records, identified by `id`, for store updates.
struct StoreRecord: BenchmarkRecord, Identifiable, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records-store" }
}

/// Model evolution's costs: a load that fills a default into every record, against a load that needs none; and
/// a store update of one record in n, against the I/O floor of rewriting the file.
struct EvolutionWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run(n: Int) throws -> EvolutionResult {
        let repetitions = plan.bulkRepetitions(n: n)
        var result = EvolutionResult(n: n)

        // The complete file, and the same records as a version without `age` wrote them.
        let records = (0..<n).map(Record.init(index:))
        try records.saveToFile()
        let complete = try Data(contentsOf: Record.archiveUrl)
        let missing = try JSONSerialization.data(
            withJSONObject: (try JSONSerialization.jsonObject(with: complete) as! [[String: Any]]).map { object in
                object.filter { $0.key != "age" }
            },
            options: [.prettyPrinted, .sortedKeys]
        )
        let defaultedFile = DefaultedRecord.archiveUrl
        for round in 0..<repetitions {
            try interleave(round: round, [
                {
                    Record.clearArchiveCache()
                    var loaded: [Record] = []
                    result.loadComplete.add(try Stopwatch.seconds { loaded = try Record.loadListFromFile() })
                    try expect(loaded.count == n, "evolution", "loaded \(loaded.count) of \(n) records")
                },
                {
                    try complete.write(to: defaultedFile)
                    DefaultedRecord.clearArchiveCache()
                    var loaded: [DefaultedRecord] = []
                    result.loadDeclaringDefaults.add(try Stopwatch.seconds {
                        loaded = try DefaultedRecord.loadListFromFile()
                    })
                    try expect(loaded.count == n, "evolution", "loaded \(loaded.count) of \(n) records")
                },
                {
                    try missing.write(to: defaultedFile)
                    DefaultedRecord.clearArchiveCache()
                    var loaded: [DefaultedRecord] = []
                    result.loadFillingDefaults.add(try Stopwatch.seconds {
                        loaded = try DefaultedRecord.loadListFromFile()
                    })
                    try expect(
                        loaded.count == n && loaded.allSatisfy { $0.age == 0 }, "evolution", "the defaults were not filled"
                    )
                },
            ])
        }
        try Record.deleteFile()
        try DefaultedRecord.deleteFile()

        // One record updated in n, the store's cache warm, against rewriting the file's bytes atomically.
        let store = FileStore<StoreRecord>()
        let floorFile = sandbox.file("records-floor.json")
        try store.replaceAll(with: (0..<n).map(StoreRecord.init(index:)))
        _ = try store.all()
        for round in 0..<repetitions {
            try interleave(round: round, [
                {
                    var changed = StoreRecord(index: n / 2)
                    changed.name = "Renamed \(round)"
                    result.updateOne.add(try Stopwatch.seconds { try store.update(changed) })
                },
                {
                    // Another file with the same bytes: rewriting the store's own would make its cache stale.
                    let bytes = try Data(contentsOf: StoreRecord.archiveUrl)
                    result.rewriteFloor.add(try Stopwatch.seconds {
                        try IOFloor.rewrite(bytes, atPath: floorFile.path, durable: true)
                    })
                },
            ])
        }
        StoreRecord.clearArchiveCache()
        let final = try store.all()
        try expect(final.count == n, "evolution", "the store holds \(final.count) of \(n) records")
        try StoreRecord.deleteFile()
        Sandbox.removeFile(floorFile)
        return result
    }
}
