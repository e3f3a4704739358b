import Foundation
import Persistible

/// One append to a small file in a directory of many other files, against the same append in a directory of its
/// own: what looking for abandoned temporaries costs when there are none.
struct CrowdedWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run(durable: Bool) throws -> CrowdedResult {
        let crowded = sandbox.file("crowded")
        let alone = sandbox.file("alone")
        if !FileManager.default.fileExists(atPath: crowded.path) {
            try FileManager.default.createDirectory(at: crowded, withIntermediateDirectories: false)
            for index in 0..<plan.crowdedFiles {
                let descriptor = open(crowded.appendingPathComponent("other-\(index).json").path, O_WRONLY | O_CREAT, 0o644)
                guard descriptor >= 0 else {
                    throw WorkloadFailure(description: "crowded: could not create file \(index): errno \(errno)")
                }
                close(descriptor)
            }
        }
        try? FileManager.default.createDirectory(at: alone, withIntermediateDirectories: false)

        let durability: Durability = durable ? .full : .noSync
        let stores = [crowded, alone].map {
            FileStore<Record>(url: $0.appendingPathComponent("records.json"), durability: durability)
        }
        let seed = (0..<100).map(Record.init(index:))
        for store in stores { try store.replaceAll(with: seed) }

        var nextIndex = seed.count
        func append(_ store: FileStore<Record>) throws {
            try store.insert(Record(index: nextIndex))
            nextIndex += 1
        }
        var result = CrowdedResult(durable: durable, files: plan.crowdedFiles, crowded: Samples(), alone: Samples())
        for round in 0..<plan.crowdedRepetitions {
            try interleave(round: round, [
                { result.crowded.add(try Stopwatch.seconds { try append(stores[0]) }) },
                { result.alone.add(try Stopwatch.seconds { try append(stores[1]) }) },
            ])
        }
        for store in stores {
            let count = try FileStore<Record>(url: store.url, cachesRecords: false).all().count
            guard count == seed.count + plan.crowdedRepetitions else {
                throw WorkloadFailure(description: "crowded: a file holds \(count) records, expected \(seed.count + plan.crowdedRepetitions)")
            }
            try store.deleteAll()
        }
        return result
    }
}
