import Foundation
import Persistible
import Testing

/// A record that a newer version wrote and this one cannot read does not lock this version out of the file, when its
/// type skips such records: reads return the others, every write keeps it byte for byte where it stood, and
/// `unreadableRecords()` reports it.
@Suite struct NewerRecordTests {
    typealias Todo = EnumCase.V1Skipping

    /// The record version 2 wrote in `enum-v2`, as the file holds it.
    private let archived = todo("b", "archived")

    /// A file holding `records`, in the package's format.
    private func file(_ records: String...) -> Data {
        Data(("[\n  " + records.joined(separator: ",\n  ") + "\n]\n").utf8)
    }

    @Test func theOlderVersionLoadsSavesEditsRemovesAndOverwritesAroundARecordItCannotRead() throws {
        try inTemporaryDirectory { directory in
            let new = try install("enum-v2", as: Todo.self)
            #expect(try Todo.loadListFromFile() == [Todo(id: "a", state: .open), Todo(id: "c", state: .done)])
            #expect(try Todo.load() == .array([Todo(id: "a", state: .open), Todo(id: "c", state: .done)]))
            let kept = try Todo.unreadableRecords()
            #expect(kept.map(\.index) == [1])
            #expect(kept.first?.codingPath == "[1].state")
            #expect(kept.first?.message.contains("archived") == true, "\(kept)")
            #expect(kept.first.map { String(decoding: $0.bytes, as: UTF8.self) } == archived)
            #expect(try Todo.salvageFile().unreadable == kept)
            #expect(try bytes(of: Todo.self) == new)

            try Todo(id: "d", state: .open).saveToFile()
            #expect(try bytes(of: Todo.self) == file(todo("a", "open"), archived, todo("c", "done"), todo("d", "open")))
            // A save of another stored identity edits that record where it stands.
            try Todo(id: "c", state: .open).saveToFile()
            #expect(try bytes(of: Todo.self) == file(todo("a", "open"), archived, todo("c", "open"), todo("d", "open")))
            try Todo(id: "a", state: .open).removeFromFile()
            #expect(try bytes(of: Todo.self) == file(archived, todo("c", "open"), todo("d", "open")))
            #expect(try Todo.unreadableRecords().map(\.index) == [0])
            #expect(try EnumCase.V2.loadListFromFile().map(\.state) == [.archived, .open, .open])

            // An overwrite makes the file hold exactly the values given, as far as this version can tell.
            try [Todo(id: "e", state: .done)].overwriteFile()
            #expect(try bytes(of: Todo.self) == file(archived, todo("e", "done")))
            try Todo(id: "f", state: .open).overwriteFile()
            #expect(try bytes(of: Todo.self) == file(archived, todo("f", "open")))
            #expect(try Todo.load() == .array([Todo(id: "f", state: .open)]))
            try [Todo]().overwriteFile()
            #expect(try bytes(of: Todo.self) == file(archived))
            #expect(try Todo.loadListFromFile().isEmpty)
            #expect(try EnumCase.V2.loadListFromFile() == [EnumCase.V2(id: "b", state: .archived)])
            #expect(try directory.temporaries().isEmpty)
        }
    }

    /// A value with the identity of a record this version skips would stand beside it, and the version that reads
    /// both would keep only one: every write that would store one is refused, and the file stays as it is.
    @Test func noWriteGivesAValueTheIdentityOfARecordItCannotRead() throws {
        try inTemporaryDirectory { directory in
            let new = try install("enum-v2", as: Todo.self)
            let taken = Todo(id: "b", state: .open)
            let attempts: [() throws -> Void] = [
                { _ = try taken.saveToFile() },
                { _ = try [Todo(id: "d", state: .open), taken].saveToFile() },
                { try Todo.updateList { $0.append(taken) } },
                { try [taken].overwriteFile() },
                { try FileStore<Todo>().insert(taken) },
                { try FileStore<Todo>().write { $0.insert(contentsOf: [Todo(id: "a", state: .done), taken]) } },
            ]
            for attempt in attempts {
                let error = persistenceError(attempt)
                #expect(error?.versionMismatch?.record == 1, "\(String(describing: error))")
                #expect(try bytes(of: Todo.self) == new)
            }
            #expect(try directory.temporaries().isEmpty)
            try Todo(id: "d", state: .open).saveToFile()
            #expect(try EnumCase.V2.loadListFromFile().map(\.id) == ["a", "b", "c", "d"])
        }
    }

    @Test func aFileStoreWorksAroundARecordItCannotRead() throws {
        try inTemporaryDirectory { _ in
            _ = try install("enum-v2", as: Todo.self)
            let store = FileStore<Todo>()
            #expect(try store.all() == [Todo(id: "a", state: .open), Todo(id: "c", state: .done)])
            #expect(try store.unreadableRecords().map(\.index) == [1])
            try store.insert(Todo(id: "d", state: .open))
            try store.update(Todo(id: "a", state: .done))
            #expect(try bytes(of: Todo.self) == file(todo("a", "done"), archived, todo("c", "done"), todo("d", "open")))
            try store.delete(Todo(id: "c", state: .done))
            #expect(try bytes(of: Todo.self) == file(todo("a", "done"), archived, todo("d", "open")))
            try store.replaceAll(with: [Todo(id: "d", state: .done), Todo(id: "e", state: .open)])
            #expect(try bytes(of: Todo.self) == file(archived, todo("d", "done"), todo("e", "open")))
            try store.deleteAll()
            #expect(try bytes(of: Todo.self) == file(archived))
            #expect(try store.all().isEmpty)
            #expect(try store.unreadableRecords().map(\.index) == [0])
            // Another handle, reading the file afresh, sees the same.
            Todo.clearArchiveCache()
            #expect(try FileStore<Todo>().unreadableRecords().map(\.index) == [0])
        }
    }

    @Test func recordsAnotherWriterAppendedAreReadAndSkippedAsTheRest() throws {
        try inTemporaryDirectory { _ in
            let new = try install("enum-v2", as: Todo.self)
            #expect(try Todo.loadListFromFile().count == 2)
            // What another process's save leaves: the same bytes up to the last record, then more after a comma.
            func appending(_ records: String...) -> Data {
                Data((String(decoding: new.dropLast(2), as: UTF8.self) + ",\n  " + records.joined(separator: ",\n  ")
                    + "\n]\n").utf8)
            }
            try appending(todo("d", "open")).write(to: Todo.archiveUrl)
            #expect(try Todo.loadListFromFile().map(\.id) == ["a", "c", "d"])
            #expect(try Todo.unreadableRecords().map(\.index) == [1])
            try appending(todo("d", "open"), todo("e", "archived"), todo("f", "done")).write(to: Todo.archiveUrl)
            #expect(try Todo.loadListFromFile().map(\.id) == ["a", "c", "d", "f"])
            #expect(try Todo.unreadableRecords().map(\.index) == [1, 4])
        }
    }

    /// A type that fills a key it added with a default, and skips records it cannot read.
    struct Chore: Codable, Hashable, Identifiable, Persistible {
        enum State: String, Codable { case open, done }
        var id: String
        var state: State
        var note = ""
        static var fileName: String { "chores" }
        static var archiveDefaults: Chore? { Chore(id: "", state: .open) }
        static var archiveSkipsUnreadableRecords: Bool { true }
    }

    @Test func aRecordThatNeededADefaultIsWrittenAnewBesideOneKeptAsStored() throws {
        try inTemporaryDirectory { _ in
            let archived = #"{"id":"b","state":"archived","note":"from version 2"}"#
            try install(json: #"[{"id":"a","state":"open"},"# + archived + #",{"id":"c","state":"done"}]"#, as: Chore.self)
            #expect(try Chore.loadListFromFile() == [Chore(id: "a", state: .open), Chore(id: "c", state: .done)])
            try FileStore<Chore>().update(Chore(id: "c", state: .open, note: "changed"))
            func chore(_ id: String, _ note: String, _ state: String) -> String {
                "{\n    \"id\" : \"\(id)\",\n    \"note\" : \"\(note)\",\n    \"state\" : \"\(state)\"\n  }"
            }
            #expect(try bytes(of: Chore.self) == file(chore("a", "", "open"), archived, chore("c", "changed", "open")))
            let kept = try Chore.unreadableRecords()
            #expect(kept.map(\.index) == [1])
            #expect(kept.first.map { String(decoding: $0.bytes, as: UTF8.self) } == archived)
        }
    }

    @Test func damageStillThrowsWithoutAMismatchAndIsNeverWrittenOver() throws {
        try inTemporaryDirectory { _ in
            // Valid JSON but for one byte that is no UTF-8, inside the record a newer version might have written.
            var damaged = Data(#"[{"id":"a","state":"open"},{"id":"b"#.utf8)
            damaged += Data([0xFF]) + Data(#"","state":"archived"}]"#.utf8)
            for contents in [damaged, Data(#"[{"id":"a","state":"open"},{"id":"b","sta"#.utf8)] {
                try FileManager.default.createDirectory(at: Todo.archiveDirectory, withIntermediateDirectories: true)
                try contents.write(to: Todo.archiveUrl)
                let error = persistenceError { _ = try Todo.loadListFromFile() }
                #expect(error?.versionMismatch == nil)
                guard case .unreadable? = error?.reason else {
                    Issue.record("\(String(describing: error))")
                    continue
                }
                #expect(persistenceError { try Todo(id: "d", state: .open).saveToFile() } != nil)
                #expect(persistenceError { try FileStore<Todo>().deleteAll() } != nil)
                #expect(try bytes(of: Todo.self) == contents)
            }
        }
    }

    @Test func aSingleValueNoVersionReadsStillThrows() throws {
        try inTemporaryDirectory { _ in
            let single = try install(json: #"{"id":"b","state":"archived"}"#, as: Todo.self)
            #expect(persistenceError { _ = try Todo.load() }?.versionMismatch?.attempts.first?.codingPath == "state")
            #expect(persistenceError { try Todo(id: "d", state: .open).saveToFile() }?.versionMismatch != nil)
            #expect(persistenceError { try Todo(id: "d", state: .open).overwriteFile() }?.versionMismatch != nil)
            #expect(try bytes(of: Todo.self) == single)
        }
    }

    /// Without the choice, whatever reads every record throws; a change by identity reads the records with that
    /// identity alone, so that an edit or removal of a record this version reads, and an append, keep the newer
    /// record byte for byte, while a change of the newer record's own identity throws and writes nothing.
    @Test func withoutTheChoiceTheOlderVersionChangesOnlyWhatItReads() throws {
        try inTemporaryDirectory { _ in
            let new = try install("enum-v2", as: EnumCase.V1.self)
            #expect(persistenceError { _ = try EnumCase.V1.loadListFromFile() }?.versionMismatch?.record == 1)
            #expect(persistenceError { _ = try EnumCase.V1.unreadableRecords() }?.versionMismatch?.record == 1)
            #expect(persistenceError { try EnumCase.V1(id: "b", state: .done).saveToFile() }?.versionMismatch != nil)
            #expect(persistenceError { try EnumCase.V1(id: "b", state: .open).removeFromFile() }?.versionMismatch != nil)
            #expect(try bytes(of: EnumCase.V1.self) == new)
            #expect(try EnumCase.V1(id: "a", state: .done).saveToFile())
            #expect(try EnumCase.V1(id: "c", state: .done).removeFromFile())
            #expect(try EnumCase.V1(id: "d", state: .open).saveToFile())
            #expect(String(decoding: try bytes(of: EnumCase.V1.self), as: UTF8.self).contains(todo("b", "archived")))
            #expect(try EnumCase.V2.loadListFromFile().map(\.id) == ["a", "b", "d"])
            #expect(try EnumCase.V2.loadListFromFile().first?.state == .done)
        }
    }
}

/// A todo as the package's encoder writes it inside an array.
private func todo(_ id: String, _ state: String) -> String {
    "{\n    \"id\" : \"\(id)\",\n    \"state\" : \"\(state)\"\n  }"
}
