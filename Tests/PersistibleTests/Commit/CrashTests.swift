import Foundation
import Persistible
import Testing

@Suite struct CrashTests {
    /// Kills a writer with SIGKILL at a random moment of a save, many times over: the file always loads, and every
    /// save that had returned before the kill is in it.
    @Test(arguments: Volume.allCases)
    func aWriterKilledAtAnyMomentLeavesALoadableFileWithEveryReturnedSave(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        var generator = SystemRandomNumberGenerator()
        var returned: [String] = []
        for round in 0..<24 {
            let writer = try ChildProcess("StressWriter", ["append", directory.path, "round\(round)", "100000"])
            let wanted = Int.random(in: 1...15, using: &generator)
            let early = readBytes(from: writer.output, untilLines: wanted)
            // A random pause moves the kill to a random point of the save under way.
            usleep(UInt32.random(in: 0...4000, using: &generator))
            kill(writer.process.processIdentifier, SIGKILL)
            let result = writer.finish()
            #expect(result.status == SIGKILL)
            #expect(writer.process.terminationReason == .uncaughtSignal)
            returned += completeLines(early + Data(result.output.utf8))

            let ids = try withArchiveDirectory(directory.url) { try StressRecord.loadListFromFile().map(\.id) }
            let missing = Set(returned).subtracting(ids)
            #expect(missing.isEmpty, "round \(round): saves that had returned are missing: \(missing.sorted())")
            #expect(Set(ids).count == ids.count)
        }
        // Whatever temporaries the kills left, the next writer removes.
        try withArchiveDirectory(directory.url) { try StressRecord(id: "after").saveToFile() }
        #expect(try directory.contents() == ["stress.json", "stress.json.lock"])
    }

    /// Shuts an XFS file system down under a writer, as a power loss stops a machine, then recovers it, many times
    /// over: the file always loads and holds a version once saved (the first saves, in order), and with full
    /// durability every save that had returned before the power went.
    @Test(.needsXFS, arguments: [Durability.full, .noSync])
    func aPowerLossUnderAWriterLeavesAVersionOnceSaved(durability: Durability) throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<12 {
            let directory = try TemporaryDirectory(on: .xfsReflink)
            let mounted = directory.volume
            let volume = try #require(mounted)
            let environment = durability == .noSync ? ["STRESS_NO_SYNC": "1"] : [:]
            let writer = try ChildProcess(
                "StressWriter", ["append", directory.path, "round\(round)", "100000"], environment: environment
            )
            let early = readBytes(from: writer.output, untilLines: Int.random(in: 1...40, using: &generator))
            // Only what had returned before the shutdown counts: a writer's directory flush racing the shutdown
            // can return success on XFS (the shutdown unpins the directory, and its fsync then forces nothing), and
            // a real power loss stops the writer before it could report anything.
            let returned = completeLines(early)
            usleep(UInt32.random(in: 0...3000, using: &generator))
            try volume.shutDown()
            kill(writer.process.processIdentifier, SIGKILL)
            _ = writer.finish()
            try volume.remount()

            let ids: [String]
            do {
                ids = try withArchiveDirectory(directory.url) { try StressRecord.loadListFromFile().map(\.id) }
            } catch let error as PersistenceError where error.reason == .fileNotFound && durability == .noSync {
                // Unflushed, even the first save may not have reached the disk: the state before it.
                ids = []
            }
            #expect(ids == (0..<ids.count).map { "round\(round)-\($0)" }, "round \(round): not a version once saved")
            if durability == .full {
                #expect(ids.count >= returned.count, "round \(round): \(returned.count) saves had returned")
            }
        }
    }

    /// Reads from the pipe until at least `count` lines have arrived or the pipe closes.
    private func readBytes(from pipe: Pipe, untilLines count: Int) -> Data {
        var buffer = Data()
        while buffer.count(where: { $0 == UInt8(ascii: "\n") }) < count {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        return buffer
    }

    /// The lines that end with a newline: a line cut short by the kill was not reported whole.
    private func completeLines(_ bytes: Data) -> [String] {
        var lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n")
        lines.removeLast()
        return lines
    }
}
