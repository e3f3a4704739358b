import Foundation
import Persistible
import Testing

/// Salvage reads what it can and writes nothing; moving a file aside renames it, never replacing another file.
@Suite struct SalvageTests {
    @Test func salvageReadsTheRecordsBeforeABreakAndReturnsTheRestAsItIs() throws {
        try inTemporaryDirectory { directory in
            try [sam, amy, maame].saveToFile()
            let whole = try bytes(of: Person.self)
            let truncated = whole.prefix(whole.count - 20)
            try truncated.write(to: Person.archiveUrl)
            let salvaged = try Person.salvageFile()
            #expect(salvaged.values == [sam, amy])
            let rest = try #require(salvaged.unreadable.first)
            #expect(salvaged.unreadable.count == 1)
            #expect(rest.index == 2)
            #expect(rest.codingPath == "[2]")
            #expect(truncated.suffix(rest.bytes.count) == rest.bytes)
            #expect(String(decoding: rest.bytes, as: UTF8.self).hasPrefix("{"))
            #expect(try bytes(of: Person.self) == truncated)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func salvageOfAReadableFileReturnsEveryValue() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            #expect(try Person.salvageFile() == SalvagedRecords(values: [sam, amy], unreadable: []))
            #expect(try FileStore<Person>().salvageFile().values == [sam, amy])
        }
    }

    @Test func salvageOfAMissingFileThrowsFileNotFound() throws {
        try inTemporaryDirectory { _ in
            #expect(persistenceError { _ = try Person.salvageFile() }?.reason == .fileNotFound)
            #expect(persistenceError { _ = try Person.moveFileAside() }?.reason == .fileNotFound)
        }
    }

    @Test func salvageAppliesDefaultsAndMigrationsRecordByRecord() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: Renamed.V3.archiveDirectory, withIntermediateDirectories: true)
            let contents = Data("[{\"id\":\"a\",\"name\":\"old\"},{\"id\":\"b\"},{\"id\":\"c\",\"title\":\"t\",\"tags\":[]}]".utf8)
            try contents.write(to: Renamed.V3.archiveUrl)
            let salvaged = try Renamed.V3.salvageFile()
            #expect(salvaged.values == [
                Renamed.V3(id: "a", title: "old", tags: []), Renamed.V3(id: "c", title: "t", tags: []),
            ])
            #expect(salvaged.unreadable.map(\.index) == [1])
            #expect(salvaged.unreadable.first?.bytes == Data("{\"id\":\"b\"}".utf8))
            #expect(salvaged.unreadable.first?.message.contains("V1") == true)
            #expect(try bytes(of: Renamed.V3.self) == contents)
        }
    }

    @Test func movingAFileAsideKeepsEveryByteAndNeverReplacesAFile() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: Person.archiveDirectory, withIntermediateDirectories: true)
            let damaged = Data("[{\"name\": \"Sam".utf8)
            try damaged.write(to: Person.archiveUrl)
            // Files already bearing the names the move could choose in the next few seconds.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
            let now = Date()
            var placeholders: [URL] = []
            for offset in -1...5 {
                let name = "person_data.unreadable-\(formatter.string(from: now + TimeInterval(offset))).json"
                let url = directory.file(name)
                try Data("placeholder \(offset)".utf8).write(to: url)
                placeholders.append(url)
            }
            let moved = try Person.moveFileAside()
            #expect(moved.deletingLastPathComponent().standardizedFileURL.path
                == Person.archiveDirectory.standardizedFileURL.path)
            #expect(moved.lastPathComponent.hasPrefix("person_data.unreadable-"))
            #expect(moved.pathExtension == "json")
            #expect(try Data(contentsOf: moved) == damaged)
            #expect(!FileManager.default.fileExists(atPath: Person.archiveUrl.path))
            for (offset, url) in zip(-1...5, placeholders) {
                #expect(try Data(contentsOf: url) == Data("placeholder \(offset)".utf8))
            }
            // The app starts afresh.
            try sam.saveToFile()
            #expect(try Person.loadListFromFile() == [sam])
        }
    }

    @Test func aStoreMovesAReadableFileAsideAndIsThenEmpty() throws {
        try inTemporaryDirectory { directory in
            let url = directory.file("movies.json")
            let store = FileStore<Movie>(url: url)
            try store.insert(contentsOf: movies)
            let before = try Data(contentsOf: url)
            #expect(try store.all() == movies)
            let moved = try store.moveFileAside()
            #expect(moved.lastPathComponent.hasPrefix("movies.moved-aside-"))
            #expect(try Data(contentsOf: moved) == before)
            #expect(try store.all().isEmpty)
        }
    }
}
