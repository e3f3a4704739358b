import Foundation
import Persistible
import Testing

/// Files whose records the package cannot find in their bytes, though the decoder reads them: a trailing comma,
/// UTF-16, JSON5. A write encodes them whole, so it keeps a key the type does not know only where it can splice;
/// otherwise it throws and leaves the file as it was. A UTF-8 byte order mark is stepped over, and such a file is
/// written as any other.
@Suite struct UnscannableFileTests {
    typealias Task = AddedField.V1

    /// Two records, the first with `priority`, which `Task` does not know.
    static let text = #"[{"id":"a","priority":2,"title":"Buy milk"},{"id":"b","title":"Call Amy"}]"#
    static let byteOrderMark = Data([0xEF, 0xBB, 0xBF])

    private func expectWritesThrowAndKeepTheFile(
        _ contents: Data, decoder: JSONDecoder = ArchiveFormat.decoder, appendSplices: Bool = false
    ) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("tasks.json")
        try contents.write(to: url)
        let store = FileStore<Task>(url: url, decoder: decoder)
        #expect(try store.all().map(\.id) == ["a", "b"])
        let error = persistenceError { try store.update(Task(id: "b", title: "Call Amy back")) }
        #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0].priority"]))
        #expect(try Data(contentsOf: url) == contents)
        if !appendSplices {
            let appendError = persistenceError { try store.insert(Task(id: "c", title: "Read")) }
            #expect(appendError?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0].priority"]))
            #expect(try Data(contentsOf: url) == contents)
        }
        #expect(try directory.temporaries().isEmpty)
    }

    @Test func aFileWithAByteOrderMarkKeepsAnUnknownKeyThroughAnEditAndAnAppend() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("tasks.json")
        try (Self.byteOrderMark + Data(Self.text.utf8)).write(to: url)
        let store = FileStore<Task>(url: url)
        try store.update(Task(id: "b", title: "Call Amy back"))
        try store.insert(Task(id: "c", title: "Read"))
        let stored = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        #expect(stored.map { $0["priority"] as? Int } == [2, nil, nil])
        #expect(stored.map { $0["title"] as? String } == ["Buy milk", "Call Amy back", "Read"])
        #expect(try directory.temporaries().isEmpty)
    }

    @Test func aFileInUTF16ThrowsRatherThanLoseAnUnknownKey() throws {
        try expectWritesThrowAndKeepTheFile(try #require(Self.text.data(using: .utf16LittleEndian)))
    }

    @Test func aJSON5FileThrowsRatherThanLoseAnUnknownKey() throws {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        let json5 = "// tasks\n[{id: 'a', priority: 2, title: 'Buy milk'}, {id: 'b', title: 'Call Amy',},]"
        try expectWritesThrowAndKeepTheFile(Data(json5.utf8), decoder: decoder)
    }

    @Test func aFileWithATrailingCommaThrowsOnAnEditAndKeepsTheKeyOnAnAppend() throws {
        let contents = Data(Self.text.dropLast().appending(",]").utf8)
        try expectWritesThrowAndKeepTheFile(contents, appendSplices: true)
        let directory = try TemporaryDirectory()
        let url = directory.file("tasks.json")
        try contents.write(to: url)
        try FileStore<Task>(url: url).insert(Task(id: "c", title: "Read"))
        let stored = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        #expect(stored.map { $0["priority"] as? Int } == [2, nil, nil])
    }

    @Test func aSingleValueWithAByteOrderMarkKeepsAnUnknownKey() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: Task.archiveDirectory, withIntermediateDirectories: true)
            let contents = Self.byteOrderMark + Data(#"{"id":"a","priority":2,"title":"Buy milk"}"#.utf8)
            try contents.write(to: Task.archiveUrl)
            try Task.update(default: Task(id: "a", title: "")) { $0.title = "Oat" }
            let stored = try #require(try JSONSerialization.jsonObject(with: bytes(of: Task.self)) as? [String: Any])
            #expect(stored["priority"] as? Int == 2)
            #expect(stored["title"] as? String == "Oat")
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aFileWithNothingUnknownIsStillWrittenWhole() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("tasks.json")
        let text = #"[{"id":"a","title":"Buy milk"},{"id":"b","title":"Call Amy"}]"#
        try #require(text.data(using: .utf16LittleEndian)).write(to: url)
        let store = FileStore<Task>(url: url)
        try store.update(Task(id: "b", title: "Call Amy back"))
        #expect(try Data(contentsOf: url) == storedForm(ArchiveFormat.encoder.encode(
            [Task(id: "a", title: "Buy milk"), Task(id: "b", title: "Call Amy back")])))
    }

    /// A task whose `Set`s are encoded in an order that changes from process to process, with an estimate.
    struct Planned: Codable, Hashable, Identifiable {
        struct Step: Codable, Hashable {
            var name: String
        }

        var id: String
        var hours: Float
        var tags: Set<String>
        var steps: Set<Step>
        var title: String
    }

    @Test func aWholeWriteComparesValuesByMeaningNotSpelling() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("planned.json")
        // Numbers, escapes and set elements as the encoder would not write them, meaning what it would.
        let first = #"{"id":"a","hours":2.50,"tags":["z","y","x"],"steps":[{"name":"b"},{"name":"a"}],"#
            + #""title":"Caf\u00e9 \/ tea"}"#
        let text = "[" + first + #",{"id":"b","hours":1e0,"tags":[],"steps":[],"title":"Call"}]"#
        try #require(text.data(using: .utf16LittleEndian)).write(to: url)
        let store = FileStore<Planned>(url: url)
        try store.update(Planned(id: "b", hours: 2, tags: [], steps: [], title: "Call Amy"))
        #expect(try store.all().map(\.title) == ["Caf\u{e9} / tea", "Call Amy"])
    }

    @Test func aWholeWriteNamesAScalarReadAsAnotherValue() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("planned.json")
        // Read as a `Float`, 2.5000001 is 2.5, and a whole write would store that.
        let text = #"[{"id":"a","hours":2.5000001,"tags":["x"],"steps":[],"title":"Milk","zone":1}]"#
        let contents = try #require(text.data(using: .utf16LittleEndian))
        try contents.write(to: url)
        let error = persistenceError {
            try FileStore<Planned>(url: url).insert(Planned(id: "b", hours: 1, tags: [], steps: [], title: "Read"))
        }
        #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0].hours", "[0].zone"]))
        #expect(try Data(contentsOf: url) == contents)
    }
}
