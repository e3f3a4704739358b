import Foundation
import Persistible
import Synchronization
import Testing

/// When another writer appends to a file this process knows, only the appended values are decoded.
@Suite struct CatchUpTests {
    @Test func anotherProcesssAppendsAreTheOnlyValuesDecoded() throws {
        try inTemporaryDirectory { directory in
            try (0..<200).map { CountedRecord(id: "mine-\($0)") }.saveToFile()
            CountedRecord.decodes.store(0, ordering: .relaxed)
            #expect(try CountedRecord.loadListFromFile().count == 200)
            #expect(CountedRecord.decodes.load(ordering: .relaxed) == 0, "the file had not changed")

            let other = try ChildProcess.run("StressWriter", ["append", directory.path, "theirs", "3"])
            #expect(other.status == 0, "\(other.errors)")
            let ids = try CountedRecord.loadListFromFile().map(\.id)
            #expect(ids == (0..<200).map { "mine-\($0)" } + ["theirs-0", "theirs-1", "theirs-2"])
            #expect(CountedRecord.decodes.load(ordering: .relaxed) == 3)

            // A save after another process's appends catches up the same way, under the lock.
            _ = try ChildProcess.run("StressWriter", ["append", directory.path, "more", "2"])
            try CountedRecord(id: "mine-200").saveToFile()
            #expect(CountedRecord.decodes.load(ordering: .relaxed) == 5)
            #expect(try CountedRecord.loadListFromFile().suffix(3).map(\.id) == ["more-0", "more-1", "mine-200"])

            // A file changed anywhere before its end is decoded whole.
            var changed = try StressRecord.archiveDecoder.decode([StressRecord].self, from: bytes(of: StressRecord.self))
            changed[0].payload = "edited"
            try StressRecord.archiveEncoder.encode(changed).write(to: StressRecord.archiveUrl, options: .atomic)
            CountedRecord.decodes.store(0, ordering: .relaxed)
            #expect(try CountedRecord.loadListFromFile().first?.payload == "edited")
            #expect(CountedRecord.decodes.load(ordering: .relaxed) == changed.count)
        }
    }

    @Test func anUnreadableAppendIsReportedWhereItIsAndChangesNothing() throws {
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
            let saveError = persistenceError { try StressRecord(id: "r5").saveToFile() }
            #expect(saveError?.reason == loadError?.reason)
            #expect(try bytes(of: StressRecord.self) == contents)
            #expect(try directory.temporaries().isEmpty)
        }
    }
}

/// A `StressRecord` read under another type, counting how many values are decoded.
private struct CountedRecord: Codable, Hashable, Persistible {
    static let decodes = Atomic<Int>(0)

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
        Self.decodes.add(1, ordering: .relaxed)
    }
}
