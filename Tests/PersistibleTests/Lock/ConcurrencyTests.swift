import Foundation
import Persistible
import Testing

@Suite struct ConcurrencyTests {
    @Test(arguments: Volume.allCases)
    func threadsAppendingAtOnceLoseNothing(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let url = directory.url
        let failures = FailureLog()
        // Threads, not tasks: the task-local directory is set again inside each one.
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            withArchiveDirectory(url) {
                for index in 0..<40 {
                    do {
                        try Note(text: "\(thread)-\(index)").saveToFile()
                    } catch {
                        failures.record(error)
                    }
                }
            }
        }
        #expect(failures.errors.isEmpty)
        let notes = try withArchiveDirectory(url) { try Note.loadListFromFile() }
        #expect(notes.count == 320)
        #expect(Set(notes.map(\.text)) == Set((0..<8).flatMap { thread in (0..<40).map { "\(thread)-\($0)" } }))
        #expect(try directory.contents() == ["Note.json", "Note.json.lock"])
    }

    /// The README's way to add a record under the next free number: six processes adding 30 each, at once, keep
    /// all 180, numbered 1 to 180, each reported by the process that added it and none by two.
    @Test func processesTakingTheNextFreeIdAtOnceNeverCollide() throws {
        let directory = try TemporaryDirectory()
        let writers = try (0..<6).map { try ChildProcess("StressWriter", ["number", directory.path, "writer\($0)", "30"]) }
        var reported: [String] = []
        for writer in writers {
            let result = writer.finish()
            #expect(result.status == 0, "\(result.errors)")
            reported += result.output.split(separator: "\n").map(String.init)
        }
        let stored = try withArchiveDirectory(directory.url) { try StressRecord.loadListFromFile() }
        #expect(stored.count == 180)
        #expect(Set(stored.map(\.id)) == Set((1...180).map(String.init)))
        #expect(reported.sorted() == stored.map(\.id).sorted())
        let byWriter = Dictionary(grouping: stored, by: \.payload).mapValues(\.count)
        #expect(byWriter == Dictionary(uniqueKeysWithValues: (0..<6).map { ("writer\($0)", 30) }))
    }

    @Test(arguments: Volume.allCases)
    func processesAppendingAtOnceLoseNothing(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let writers = try (0..<4).map { try ChildProcess("StressWriter", ["append", directory.path, "writer\($0)", "60"]) }
        // This process appends at the same time, through its cache, which the others keep invalidating.
        try withArchiveDirectory(directory.url) {
            for index in 0..<30 { try StressRecord(id: "parent-\(index)").saveToFile() }
        }
        for writer in writers {
            let result = writer.finish()
            #expect(result.status == 0, "\(result.errors)")
        }
        let ids = try withArchiveDirectory(directory.url) { try StressRecord.loadListFromFile().map(\.id) }
        let expected = (0..<4).flatMap { writer in (0..<60).map { "writer\(writer)-\($0)" } }
            + (0..<30).map { "parent-\($0)" }
        #expect(ids.count == expected.count)
        #expect(Set(ids) == Set(expected))
        // Each writer's records keep the order it saved them in.
        for writer in 0..<4 {
            let own = ids.filter { $0.hasPrefix("writer\(writer)-") }
            #expect(own == (0..<60).map { "writer\(writer)-\($0)" })
        }
    }

    @Test func demoProcessesAddingAtOnceLoseNothing() throws {
        let directory = try TemporaryDirectory()
        let adders = try (0..<12).map {
            try ChildProcess("PersonDemo", ["--directory", directory.path, "add", "Person \($0)", "\(20 + $0)", "School"])
        }
        for adder in adders {
            #expect(adder.finish().status == 0)
        }
        let list = try ChildProcess.run("PersonDemo", ["--directory", directory.path, "list"])
        let names = list.output.split(separator: "\n").map { $0.split(separator: "\t")[0] }
        #expect(Set(names) == Set((0..<12).map { "Person \($0)" }))
        #expect(names.count == 12)
    }

    @Test func anotherProcessesWriteIsSeenDespiteTheCache() throws {
        try inTemporaryDirectory { directory in
            try StressRecord(id: "mine-0").saveToFile()
            #expect(try StressRecord.loadListFromFile().map(\.id) == ["mine-0"])
            let other = try ChildProcess.run("StressWriter", ["append", directory.path, "theirs", "3"])
            #expect(other.status == 0)
            #expect(try StressRecord.loadListFromFile().map(\.id) == ["mine-0", "theirs-0", "theirs-1", "theirs-2"])
            try StressRecord(id: "mine-1").saveToFile()
            // Had the save trusted its memory of the file, the other process's records would be gone now.
            #expect(try StressRecord.loadListFromFile().map(\.id)
                == ["mine-0", "theirs-0", "theirs-1", "theirs-2", "mine-1"])
        }
    }

    @Test func anEditMadeInPlaceIsSeenDespiteTheCache() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            #expect(try Person.loadListFromFile() == [sam, amy])
            // An editor that writes in place keeps the inode; the size changes.
            let handle = try FileHandle(forWritingTo: Person.archiveUrl)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Person.archiveEncoder.encode([maame]))
            try handle.close()
            #expect(try Person.loadListFromFile() == [maame])
            try sam.saveToFile()
            #expect(try Person.loadListFromFile() == [maame, sam])
        }
    }

    @Test func clearingTheCacheChangesNothingButMemory() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            Person.clearArchiveCache()
            try maame.saveToFile()
            Person.clearArchiveCache()
            #expect(try Person.loadListFromFile() == [sam, amy, maame])
        }
    }
}

/// Errors collected from many threads.
final class FailureLog: @unchecked Sendable {
    // Every access holds `lock`.
    private let lock = NSLock()
    private var collected: [any Error] = []

    func record(_ error: any Error) {
        lock.withLock { collected.append(error) }
    }

    var errors: [any Error] { lock.withLock { collected } }
}
