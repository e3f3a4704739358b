import Foundation
import Persistible

/// Appends onto a file that appends have grown, on a file system that clones.
///
/// Each append writes its last block to a new place on the disk. Were the blocks before it always shared, a file
/// grown by appends would be held in one extent per block, and each clone, which costs the file system a step per
/// extent, would be slower than the last. The workload grows a file of a few records by many no-sync appends,
/// timing the first and the last of them, counts the file's extents, then times durable appends onto it against
/// the in-place floor, as the append-by-file-system workload does onto a file written whole.
struct GrownFileWorkload {
    let directory: URL
    let plan: Plan

    func run() throws -> GrownFileResult {
        let seed = plan.grownFileSeed, growth = plan.grownFileAppends, window = plan.grownFileWindow
        try Record.archiveEncoder.encode((0..<seed).map(GrowingRecord.init(index:))).write(to: GrowingRecord.archiveUrl)
        var result = GrownFileResult(seed: seed, appends: growth)
        for index in seed..<(seed + growth) {
            let seconds = try Stopwatch.seconds { _ = try GrowingRecord(index: index).saveToFile() }
            if index - seed < window { result.first.add(seconds) }
            if index - seed >= growth - window { result.last.add(seconds) }
        }
        result.extents = try extentCount(atPath: GrowingRecord.archiveUrl.path)

        let inPlaceFile = directory.appendingPathComponent("floor-grown-in-place.json")
        try Data(contentsOf: GrowingRecord.archiveUrl).write(to: inPlaceFile)
        let inPlace = try InPlaceFloor(path: inPlaceFile.path)
        defer { inPlace.close() }
        let indices = FreshIndices(from: seed + growth)
        for round in 0..<plan.cloneAppendRepetitions {
            try interleave(round: round, [
                { result.package.add(try Stopwatch.seconds { _ = try GrownRecord(index: indices.take()).saveToFile() }) },
                { result.inPlaceFloor.add(try Stopwatch.seconds { try inPlace.append(Record(index: indices.take())) }) },
            ])
        }
        result.extentsAfter = try extentCount(atPath: GrowingRecord.archiveUrl.path)

        let count = try GrowingRecord.loadListFromFile().count
        guard count == seed + growth + plan.cloneAppendRepetitions else {
            throw WorkloadFailure(description: "grown file: the file holds \(count) records")
        }
        try GrowingRecord.deleteFile()
        Sandbox.removeFile(inPlaceFile)
        return result
    }

    /// How many extents hold the file at `path` (`FIEMAP`), after its data is flushed.
    private func extentCount(atPath path: String) throws -> Int {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOFloor.Failure(operation: "open", errno: errno) }
        defer { close(descriptor) }
        // struct fiemap (32 bytes) with no room for extents: the call then only counts them.
        var header = [UInt8](repeating: 0, count: 32)
        let counted: Int32 = header.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt64.max, toByteOffset: 8, as: UInt64.self)  // fm_length
            raw.storeBytes(of: UInt32(1), toByteOffset: 16, as: UInt32.self)  // fm_flags: FIEMAP_FLAG_SYNC
            // FS_IOC_FIEMAP = _IOWR('f', 11, struct fiemap)
            guard ioctl(descriptor, UInt(0xC020_660B), raw.baseAddress!) == 0 else { return -1 }
            return Int32(raw.load(fromByteOffset: 20, as: UInt32.self))  // fm_mapped_extents
        }
        guard counted >= 0 else { throw IOFloor.Failure(operation: "FIEMAP", errno: errno) }
        return Int(counted)
    }
}

/// The grown file's records, appended without flushes while the file grows.
struct GrowingRecord: BenchmarkRecord, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records-grown" }
    static var archiveDurability: Durability { .noSync }
}

/// The same file's records, appended durably once it has grown.
struct GrownRecord: BenchmarkRecord, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records-grown" }
}
