import Foundation
import Persistible
import Testing

/// Files a person edited by hand: a save keeps every record they wrote, and a record reads back as the value saved.
@Suite struct HandEditedFileTests {
    /// A to-do type as the Model evolution article teaches it: defaults for every key, the identity among them.
    struct Task: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var title: String
        var done = false

        static var archiveDefaults: Task? { Task(id: 0, title: "") }
        static var archiveSkipsUnreadableRecords: Bool { true }
    }

    /// The same type without skipping: a record no version reads makes a load throw.
    struct StrictTask: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var title: String
        var done = false

        static var archiveDefaults: StrictTask? { StrictTask(id: 0, title: "") }
    }

    struct Person: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var name: String
        var tags: [String] = []
    }

    private func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    private func stored(_ url: URL) throws -> String {
        try String(decoding: Data(contentsOf: url), as: UTF8.self)
    }

    // MARK: - A record without its id

    @Test func aDefaultNeverStandsInForARecordsIdentity() throws {
        try inTemporaryDirectory { _ in
            try write(#"[{"title":"alpha"},{"title":"beta"},{"id":1,"title":"gamma"}]"#, to: Task.archiveUrl)
            #expect(try Task.loadListFromFile() == [Task(id: 1, title: "gamma")])
            #expect(try Task.unreadableRecords().map(\.index) == [0, 1])

            try Task(id: 0, title: "delta").saveToFile()
            try Task(id: 2, title: "epsilon").saveToFile()
            let text = try stored(Task.archiveUrl)
            #expect(text.contains(#"{"title":"alpha"}"#) && text.contains(#"{"title":"beta"}"#))
            #expect(try Task.loadListFromFile().map(\.title) == ["gamma", "delta", "epsilon"])
        }
    }

    @Test func aRecordWithoutItsIdentityMakesAStrictLoadThrow() throws {
        try inTemporaryDirectory { _ in
            try write(#"[{"title":"alpha"},{"id":1,"title":"gamma"}]"#, to: StrictTask.archiveUrl)
            #expect(throws: PersistenceError.self) { try StrictTask.loadListFromFile() }
            #expect(throws: PersistenceError.self) { try StrictTask.loadFromFile(id: 0) }
        }
    }

    // MARK: - A key written twice in one record

    @Test func anEditedRecordWithAKeyWrittenTwiceReadsBackAsSaved() throws {
        try inTemporaryDirectory { _ in
            try write(#"[{"id":1,"name":"Ada","tags":[],"id":5},{"id":2,"name":"Bo","tags":[]}]"#, to: Person.archiveUrl)
            let read = try #require(try Person.loadFromFile(id: 1))
            #expect(read == Person(id: 1, name: "Ada"))
            var edited = read
            edited.name = "Ada L."
            try edited.saveToFile()
            #expect(try Person.loadFromFile(id: 1) == edited)
            #expect(try JSONDecoder().decode([Person].self, from: Data(contentsOf: Person.archiveUrl))
                == [edited, Person(id: 2, name: "Bo")])
        }
    }

    @Test func editingAnotherMemberKeepsTheValueGivenForOneWrittenTwice() throws {
        try inTemporaryDirectory { _ in
            try write(#"[{"id":1,"name":"first","tags":[],"name":"second"}]"#, to: Person.archiveUrl)
            var person = try #require(try Person.loadFromFile(id: 1))
            person.tags = ["new"]
            try person.saveToFile()
            #expect(try Person.loadListFromFile() == [person])
            #expect(try JSONDecoder().decode([Person].self, from: Data(contentsOf: Person.archiveUrl)) == [person])
        }
    }

    @Test func appendingAfterARecordWithTwoIdentitiesKeepsWhatFoundationReads() throws {
        try inTemporaryDirectory { _ in
            try write(#"[{"id":1,"name":"a","tags":[],"id":2}]"#, to: Person.archiveUrl)
            let before = try JSONDecoder().decode([Person].self, from: Data(contentsOf: Person.archiveUrl))
            #expect(try Person.loadListFromFile() == before)
            try Person(id: 2, name: "b").saveToFile()
            #expect(try JSONDecoder().decode([Person].self, from: Data(contentsOf: Person.archiveUrl))
                == before + [Person(id: 2, name: "b")])
            #expect(try Person.loadListFromFile() == before + [Person(id: 2, name: "b")])
        }
    }
}

/// One rule for a record this version does not read (a hand edit put a number where a name goes): every load throws
/// for it, unless the type skips such records, and every write keeps it byte for byte, whichever path writes.
@Suite struct UnreadableRecordWriteTests {
    struct Person: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var name: String
    }

    static let file = #"[{"id":0,"name":5},{"id":1,"name":"one"}]"#
    static let damaged = #"{"id":0,"name":5}"#

    /// Every way to write the file, each given a fresh copy of it, cold (as a new process) or after a failed load.
    enum Write: String, CaseIterable, Sendable {
        case append, edit, remove, bulkSave, storeInsert, storeUpdate, storeDelete, updateList, removeWhere

        func run() throws {
            let store = FileStore<Person>()
            switch self {
            case .append: try Person(id: 2, name: "two").saveToFile()
            case .edit: try Person(id: 1, name: "uno").saveToFile()
            case .remove: try Person(id: 1, name: "").removeFromFile()
            case .bulkSave: try (2..<40).map { Person(id: $0, name: "\($0)") }.saveToFile()
            case .storeInsert: try store.insert(Person(id: 2, name: "two"))
            case .storeUpdate: try store.update(Person(id: 1, name: "uno"))
            case .storeDelete: try store.delete(Person(id: 1, name: ""))
            case .updateList: try Person.updateList { $0.append(Person(id: ($0.map(\.id).max() ?? 0) + 1, name: "next")) }
            case .removeWhere: try Person.removeFromFile { $0.name == "one" }
            }
        }
    }

    @Test(arguments: Write.allCases, [false, true])
    func everyWriteKeepsARecordNoVersionReads(_ write: Write, afterALoad: Bool) throws {
        try inTemporaryDirectory { _ in
            try Data(Self.file.utf8).write(to: Person.archiveUrl)
            Person.clearArchiveCache()
            if afterALoad { #expect(persistenceError { _ = try Person.loadListFromFile() } != nil) }
            try write.run()
            let text = try String(decoding: Data(contentsOf: Person.archiveUrl), as: UTF8.self)
            #expect(text.contains(Self.damaged), "\(text)")
            // In this process, from its memory of the write, and in a new one, the load still throws.
            #expect(throws: PersistenceError.self) { try Person.loadListFromFile() }
            Person.clearArchiveCache()
            #expect(throws: PersistenceError.self) { try Person.loadListFromFile() }
        }
    }

    @Test(arguments: [false, true])
    func aWriteOfTheIdentityThatRecordHoldsThrowsAndChangesNothing(afterALoad: Bool) throws {
        try inTemporaryDirectory { _ in
            try Data(Self.file.utf8).write(to: Person.archiveUrl)
            Person.clearArchiveCache()
            if afterALoad { _ = try? Person.loadListFromFile() }
            #expect(throws: PersistenceError.self) { try Person(id: 0, name: "zero").saveToFile() }
            #expect(try Data(contentsOf: Person.archiveUrl) == Data(Self.file.utf8))
        }
    }
}

/// Files the decoder reads that are not strict UTF-8 JSON: every path reads them as Foundation's decoder does.
@Suite struct LenientFileTests {
    struct Todo: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var title: String
        var done = false

        static var archiveDefaults: Todo? { Todo(id: 0, title: "") }
    }

    struct Plain: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var title: String
    }

    private func utf16(_ text: String) -> Data {
        Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
    }

    @Test func theDefaultsFillAFileInUTF16() throws {
        try inTemporaryDirectory { _ in
            try utf16(#"[{"id":1,"title":"a"}]"#).write(to: Todo.archiveUrl)
            #expect(try Todo.loadListFromFile() == [Todo(id: 1, title: "a")])
            try Todo(id: 2, title: "b").saveToFile()
            #expect(try JSONDecoder().decode([Todo].self, from: Data(contentsOf: Todo.archiveUrl))
                == [Todo(id: 1, title: "a"), Todo(id: 2, title: "b")])
        }
    }

    @Test func theDefaultsFillARecordWithATrailingComma() throws {
        try inTemporaryDirectory { _ in
            try Data(#"[{"id":1,"title":"a",},]"#.utf8).write(to: Todo.archiveUrl)
            #expect(try Todo.loadListFromFile() == [Todo(id: 1, title: "a")])
            #expect(try Todo.loadFromFile(id: 1) == Todo(id: 1, title: "a"))
            var edited = Todo(id: 1, title: "a")
            edited.done = true
            try edited.saveToFile()
            #expect(try JSONDecoder().decode([Todo].self, from: Data(contentsOf: Todo.archiveUrl)) == [edited])
        }
    }

    @Test func anAppendToUTF16FollowedByAStrayByteWritesWhatFoundationReads() throws {
        try inTemporaryDirectory { _ in
            let stored = utf16(#"[{"id":1,"title":"a"}]"#) + Data("]".utf8)
            let before = try JSONDecoder().decode([Plain].self, from: stored)
            for warm in [false, true] {
                try stored.write(to: Plain.archiveUrl)
                Plain.clearArchiveCache()
                if warm { #expect(try Plain.loadListFromFile() == before) }
                try Plain(id: 2, title: "new").saveToFile()
                let after = try JSONDecoder().decode([Plain].self, from: Data(contentsOf: Plain.archiveUrl))
                #expect(after == before + [Plain(id: 2, title: "new")])
            }
        }
    }
}
