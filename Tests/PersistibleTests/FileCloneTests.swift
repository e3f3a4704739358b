import Foundation
import Persistible
import Testing

/// Saves that change only the end of a file make the new file a clone of the old one and write only the end, where
/// the file system can clone; elsewhere they write the whole file.
///
/// A hard link keeps the replaced file alive, so that the blocks the new file shares with it can be seen, and so
/// that it shows the replaced file was never written.
@Suite struct FileCloneTests {
    @Test(arguments: Volume.allCases)
    func anAppendSharesTheUnchangedBlocksWithTheFileItReplacesWhereTheFileSystemCanClone(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let file = directory.file("stress.json"), replaced = directory.file("replaced.json")
        let records = (0..<200).map { StressRecord(id: "record-\($0)") }
        try withArchiveDirectory(directory.url) {
            try Array(records[..<199]).saveToFile()
            let before = try Data(contentsOf: file)
            #expect(link(file.path, replaced.path) == 0)

            try records[199].saveToFile()

            #expect(try sharesBlocks(atPath: file.path) == (volume == .xfsReflink))
            #expect(try Data(contentsOf: replaced) == before)
            #expect(try Data(contentsOf: file) == StressRecord.archiveEncoder.encode(records))
            #expect(try StressRecord.loadListFromFile() == records)
        }
    }

    @Test(arguments: Volume.allCases)
    func aStoresAppendSharesTheUnchangedBlocksWhereTheFileSystemCanClone(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let store = FileStore<StressRecord>(url: directory.file("records.json"))
        let replaced = directory.file("replaced.json")
        let records = (0..<200).map { StressRecord(id: "record-\($0)") }
        try store.insert(contentsOf: records[..<199])
        let before = try Data(contentsOf: store.url)
        #expect(link(store.url.path, replaced.path) == 0)

        try store.insert(records[199])

        #expect(try sharesBlocks(atPath: store.url.path) == (volume == .xfsReflink))
        #expect(try Data(contentsOf: replaced) == before)
        #expect(try Data(contentsOf: store.url) == ArchiveFormat.encoder.encode(records))
    }

    @Test(arguments: Volume.allCases)
    func savingAnEditedRecordNearTheEndSharesTheUnchangedBlocksWhereTheFileSystemCanClone(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let file = directory.file("stress.json"), replaced = directory.file("replaced.json")
        var records = (0..<200).map { StressRecord(id: "record-\($0)") }
        try withArchiveDirectory(directory.url) {
            try records.saveToFile()
            let before = try Data(contentsOf: file)
            #expect(link(file.path, replaced.path) == 0)

            records[198].payload = "changed"
            try records[198].saveToFile()

            #expect(try sharesBlocks(atPath: file.path) == (volume == .xfsReflink))
            #expect(try Data(contentsOf: replaced) == before)
            #expect(try Data(contentsOf: file) == StressRecord.archiveEncoder.encode(records))
        }
    }

    @Test(arguments: Volume.allCases)
    func removingTheLastRecordSharesTheRestAndShortensTheFileWhereTheFileSystemCanClone(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let file = directory.file("stress.json"), replaced = directory.file("replaced.json")
        let records = (0..<200).map { StressRecord(id: "record-\($0)") }
        try withArchiveDirectory(directory.url) {
            try records.saveToFile()
            let before = try Data(contentsOf: file)
            #expect(link(file.path, replaced.path) == 0)

            #expect(try records[199].removeFromFile())

            #expect(try sharesBlocks(atPath: file.path) == (volume == .xfsReflink))
            #expect(try Data(contentsOf: replaced) == before)
            #expect(try Data(contentsOf: file) == StressRecord.archiveEncoder.encode(Array(records[..<199])))
        }
    }

    @Test(arguments: Volume.allCases)
    func aChangeAtTheStartOfTheFileWritesItWhole(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let store = FileStore<StressRecord>(url: directory.file("records.json"))
        let replaced = directory.file("replaced.json")
        var records = (0..<200).map { StressRecord(id: "record-\($0)") }
        try store.insert(contentsOf: records)
        #expect(link(store.url.path, replaced.path) == 0)

        records[0].payload = "changed"
        try store.update(records[0])

        #expect(try sharesBlocks(atPath: store.url.path) == false)
        #expect(try Data(contentsOf: store.url) == ArchiveFormat.encoder.encode(records))
    }

    @Test(arguments: Volume.allCases)
    func aFileChangedByAnotherWriterSinceItWasCachedIsNotCloned(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let file = directory.file("stress.json")
        try withArchiveDirectory(directory.url) {
            try (0..<100).map { StressRecord(id: "record-\($0)") }.saveToFile()
            // Another program rewrites the file in place: same inode, other bytes.
            let rewritten = try StressRecord.archiveEncoder.encode((0..<50).map { StressRecord(id: "other-\($0)") })
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: rewritten)
            try handle.close()

            try StressRecord(id: "last").saveToFile()

            let expected = (0..<50).map { StressRecord(id: "other-\($0)") } + [StressRecord(id: "last")]
            #expect(try StressRecord.loadListFromFile() == expected)
            #expect(try Data(contentsOf: file) == StressRecord.archiveEncoder.encode(expected))
        }
    }
}
