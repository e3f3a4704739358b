import Foundation
import Persistible
import Testing

/// When another writer appends to a file this process knows, only the appended values are decoded.
@Suite struct CatchUpTests {
    @Test func anotherProcesssAppendsAreTheOnlyValuesDecoded() throws {
        try inTemporaryDirectory { directory in
            try (0..<200).map { CountedRecord(id: "mine-\($0)") }.saveToFile()
            // As a new process would find it: read and decoded whole.
            CountedRecord.clearArchiveCache()
            #expect(try CountedRecord.loadListFromFile().count == 200)
            CountedRecord.decodes.reset()
            #expect(try CountedRecord.loadListFromFile().count == 200)
            #expect(CountedRecord.decodes.value == 0, "the file had not changed")

            let other = try ChildProcess.run("StressWriter", ["append", directory.path, "theirs", "3"])
            #expect(other.status == 0, "\(other.errors)")
            let ids = try CountedRecord.loadListFromFile().map(\.id)
            #expect(ids == (0..<200).map { "mine-\($0)" } + ["theirs-0", "theirs-1", "theirs-2"])
            #expect(CountedRecord.decodes.value == 3)

            // A save after another process's appends catches up the same way, under the lock.
            _ = try ChildProcess.run("StressWriter", ["append", directory.path, "more", "2"])
            try CountedRecord(id: "mine-200").saveToFile()
            // Two appended by the other process, and the one this save wrote, decoded again to be remembered.
            #expect(CountedRecord.decodes.value == 6)
            #expect(try CountedRecord.loadListFromFile().suffix(3).map(\.id) == ["more-0", "more-1", "mine-200"])

            // A file changed anywhere before its end is decoded whole.
            var changed = try StressRecord.archiveDecoder.decode([StressRecord].self, from: bytes(of: StressRecord.self))
            changed[0].payload = "edited"
            try StressRecord.archiveEncoder.encode(changed).write(to: StressRecord.archiveUrl, options: .atomic)
            CountedRecord.decodes.reset()
            #expect(try CountedRecord.loadListFromFile().first?.payload == "edited")
            #expect(CountedRecord.decodes.value == changed.count)
        }
    }

    @Test func anUnreadableAppendIsReportedWhereItIsAndKeptByASave() throws {
        try inTemporaryDirectory { directory in
            let records = (0..<5).map { StressRecord(id: "r\($0)") }
            try records.saveToFile()
            _ = try StressRecord.loadListFromFile()
            // Another writer appends a record whose id is a number.
            var contents = try bytes(of: StressRecord.self)
            contents.removeLast(2)
            contents.append(Data(",\n  {\n    \"id\" : 7,\n    \"payload\" : \"x\"\n  }\n]".utf8))
            try contents.write(to: StressRecord.archiveUrl)

            let loadError = persistenceError { _ = try StressRecord.loadListFromFile() }
            guard case .unreadable(let codingPath, _)? = loadError?.reason else {
                Issue.record("expected unreadable, got \(String(describing: loadError))")
                return
            }
            // The path counts from the file's first value, not from the first appended one.
            #expect(codingPath == "[5].id")
            // A save keeps it as stored, and the load reports it again.
            try StressRecord(id: "r5").saveToFile()
            #expect(try bytes(of: StressRecord.self).starts(with: contents.dropLast(2)))
            #expect(persistenceError { _ = try StressRecord.loadListFromFile() }?.reason == loadError?.reason)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aCommaAfterATrailingCommaIsNotTakenForAnAppend() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            var contents = try bytes(of: Person.self)
            contents.removeLast(2)
            // Foundation's decoder reads a trailing comma; this process then remembers the file with it.
            try (contents + Data(",\n]".utf8)).write(to: Person.archiveUrl, options: .atomic)
            #expect(try Person.loadListFromFile() == [sam, amy])
            // Another writer leaves two commas in a row, which no decoder reads.
            let broken = contents + Data(",,\n".utf8) + (try Person.archiveEncoder.encode(maame)) + Data("\n]".utf8)
            try broken.write(to: Person.archiveUrl, options: .atomic)
            #expect(throws: (any Error).self) { try Person.archiveDecoder.decode([Person].self, from: broken) }
            let error = persistenceError { _ = try Person.loadListFromFile() }
            guard case .unreadable? = error?.reason else {
                Issue.record("expected unreadable, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func whatAnotherWriterAppendsIsAddedToWhatTheFileHolds() throws {
        // ISO-8601 drops fractions of a second, so the values saved differ from the values in the file.
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let exact = Date(timeIntervalSince1970: 1_700_000_000.75)
        for count in [2, 2_000] {
            try inTemporaryDirectory { _ in
                let saved = (0..<count).map { Event(title: "e\($0)", date: exact + Double($0)) }
                try saved.saveToFile()
                let decode = { try Event.archiveDecoder.decode([Event].self, from: bytes(of: Event.self)) }
                let inFile = try decode()
                // Another writer appends, with Foundation alone.
                let other = Event(title: "other", date: start)
                try Event.archiveEncoder.encode(inFile + [other]).write(to: Event.archiveUrl, options: .atomic)
                #expect(try Event.loadListFromFile() == inFile + [other], "count \(count)")
                // Saving a value as the file holds it adds nothing.
                try inFile[0].saveToFile()
                #expect(try decode() == inFile + [other], "count \(count)")
            }
        }
    }

    @Test func aMigratedRecordWrittenAnewIsReadAsTheFileHoldsItOnceAnotherWriterAppends() throws {
        try inTemporaryDirectory { _ in
            // Version 1 stored seconds, with fractions, which the current format's ISO 8601 dates cannot hold.
            try Data(#"[{"date": 1700000000.75, "title": "old"}]"#.utf8).write(to: DatedNote.archiveUrl)
            // The save writes the migrated record anew, without the fractions.
            try DatedNote(title: "new", date: Date(timeIntervalSince1970: 1_700_000_100)).saveToFile()
            let decode = { try DatedNote.archiveDecoder.decode([DatedNote].self, from: bytes(of: DatedNote.self)) }
            let inFile = try decode()
            #expect(inFile.map(\.date) == [1_700_000_000, 1_700_000_100].map(Date.init(timeIntervalSince1970:)))
            // Another writer appends, with Foundation alone.
            let other = DatedNote(title: "other", date: Date(timeIntervalSince1970: 1_700_000_200))
            try DatedNote.archiveEncoder.encode(inFile + [other]).write(to: DatedNote.archiveUrl, options: .atomic)
            #expect(try DatedNote.loadListFromFile() == inFile + [other])
            // Saving a value as the file holds it adds nothing.
            try inFile[0].saveToFile()
            #expect(try decode() == inFile + [other])
        }
    }

    @Test func aJSON5FileIsDecodedWholeAndWrittenWhole() throws {
        try inTemporaryDirectory { _ in
            let url = Lenient.archiveUrl
            try Data(#"[{"n": 1}, {"n": 2}, /* two */]"#.utf8).write(to: url)
            try Lenient(n: 3).saveToFile()
            #expect(try Lenient.loadListFromFile() == [Lenient(n: 1), Lenient(n: 2), Lenient(n: 3)])

            try Data("[{\"n\": 1}, {\"n\": 2} // two\n]".utf8).write(to: url, options: .atomic)
            #expect(try Lenient.loadListFromFile() == [Lenient(n: 1), Lenient(n: 2)])
            // The comma sits inside the comment: the file still holds two values.
            try Data("[{\"n\": 1}, {\"n\": 2} // two, {\"n\": 3}\n]".utf8).write(to: url, options: .atomic)
            #expect(try Lenient.loadListFromFile() == [Lenient(n: 1), Lenient(n: 2)])
        }
    }
}

/// A `StressRecord` read under another type, counting how many values are decoded.
private struct CountedRecord: Codable, Hashable, Persistible {
    static let decodes = Counter()

    var id: String
    var payload: String

    static var fileName: String { "stress" }

    init(id: String) {
        self.id = id
        payload = String(repeating: "x", count: 512)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        payload = try container.decode(String.self, forKey: .payload)
        Self.decodes.increment()
    }
}

/// A type whose decoder reads JSON5: comments, trailing commas and more.
private struct Lenient: Codable, Hashable, Persistible {
    var n: Int

    // One decoder for every operation, so that what one operation decoded is remembered for the next.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        return decoder
    }()

    static var archiveDecoder: JSONDecoder { decoder }
}

/// A note whose date the current version writes in ISO 8601, which keeps no fractions of a second, and which version
/// 1 stored as seconds since 1970.
private struct DatedNote: Codable, Hashable, Persistible {
    struct V1: Decodable {
        var title: String
        var date: Double
    }

    var title: String
    var date: Date

    static var archiveEncoder: JSONEncoder { Event.encoder }
    static var archiveDecoder: JSONDecoder { Event.decoder }
    static var archiveMigrations: [ArchiveMigration<DatedNote>] {
        [.from(V1.self) { DatedNote(title: $0.title, date: Date(timeIntervalSince1970: $0.date)) }]
    }
}
