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
            #expect(try Data(contentsOf: file) == storedForm(StressRecord.archiveEncoder.encode(records)))
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
        #expect(try Data(contentsOf: store.url) == storedForm(ArchiveFormat.encoder.encode(records)))
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
            #expect(try Data(contentsOf: file) == storedForm(StressRecord.archiveEncoder.encode(records)))
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
            #expect(try Data(contentsOf: file) == storedForm(StressRecord.archiveEncoder.encode(Array(records[..<199]))))
        }
    }

    /// Each append writes its last block to a new place; were the blocks before it always shared, a file grown by
    /// appends would be held in one extent per block (about 55 here: 400 appends of about 560 bytes onto 14
    /// blocks of 4 KiB), and each clone, which costs a step per extent, would be slower than the last.
    ///
    /// That the appends clone at all is shown by the tests above; some of these, the ones that double what was
    /// appended since the file was last written whole, write it whole.
    @Test(.needsXFS) func aFileGrownByAppendsStaysInFewExtents() throws {
        let directory = try TemporaryDirectory(on: .xfsReflink)
        let file = directory.file("stress.json")
        let records = (0..<500).map { StressRecord(id: "record-\($0)") }
        try withArchiveDirectory(directory.url) {
            try Array(records[..<100]).saveToFile()
            for record in records[100...] {
                try record.saveToFile()
            }

            // At most about one extent per doubling of the file since it was last written whole.
            let extents = try extentCount(atPath: file.path)
            #expect(extents <= 12, "\(extents) extents")
            #expect(try Data(contentsOf: file) == storedForm(StressRecord.archiveEncoder.encode(records)))
        }
    }

    /// A file held in more extents than the package leaves, as one written by other means can be, is written whole
    /// by the next append rather than cloned, and is whole again after it.
    @Test(.needsXFS) func aFileInVeryManyExtentsIsWrittenWholeByTheNextAppend() throws {
        let directory = try TemporaryDirectory(on: .xfsReflink)
        let file = directory.file("stress.json"), replaced = directory.file("replaced.json")
        let records = (0..<1_201).map { StressRecord(id: "record-\($0)") }
        // One block at a time, so that no two blocks are in one extent.
        try writeBackwards(StressRecord.archiveEncoder.encode(Array(records[..<1_200])), to: file, inPiecesOf: 4096)
        try #require(try extentCount(atPath: file.path) > 128)
        // Kept alive, so that blocks the new file shared with it would show.
        try #require(link(file.path, replaced.path) == 0)

        try withArchiveDirectory(directory.url) {
            try records[1_200].saveToFile()
        }

        #expect(try sharesBlocks(atPath: file.path) == false)
        #expect(try extentCount(atPath: file.path) < 16)
        #expect(try Data(contentsOf: file) == storedForm(StressRecord.archiveEncoder.encode(records)))
    }

    /// A file in more than 128 extents that are large, as a file system that compresses makes them, would not
    /// come out of a whole write in fewer: it is cloned as it is.
    @Test(.needsXFS) func aFileInManyLargeExtentsIsStillCloned() throws {
        let directory = try TemporaryDirectory(on: .xfsReflink)
        let file = directory.file("stress.json"), replaced = directory.file("replaced.json")
        let records = (0..<15_001).map { StressRecord(id: "record-\($0)") }
        // 64 KiB at a time, so that each piece is an extent.
        try writeBackwards(StressRecord.archiveEncoder.encode(Array(records[..<15_000])), to: file, inPiecesOf: 64 << 10)
        try #require(try extentCount(atPath: file.path) > 128)
        try #require(link(file.path, replaced.path) == 0)

        try withArchiveDirectory(directory.url) {
            try records[15_000].saveToFile()
        }

        #expect(try sharesBlocks(atPath: file.path))
        #expect(try Data(contentsOf: file) == storedForm(StressRecord.archiveEncoder.encode(records)))
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
        #expect(try Data(contentsOf: store.url) == storedForm(ArchiveFormat.encoder.encode(records)))
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
            #expect(try Data(contentsOf: file) == storedForm(StressRecord.archiveEncoder.encode(expected)))
        }
    }

    /// Writes `bytes` as a new file at `url` a piece at a time from the end back, each piece flushed before the
    /// next, so that the file system cannot put two pieces in one extent.
    private func writeBackwards(_ bytes: Data, to url: URL, inPiecesOf size: Int) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        for offset in stride(from: 0, to: bytes.count, by: size).reversed() {
            let piece = bytes[offset..<min(offset + size, bytes.count)]
            try #require(
                piece.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, off_t(offset)) } == piece.count
            )
            try #require(fsync(descriptor) == 0)
        }
    }
}
