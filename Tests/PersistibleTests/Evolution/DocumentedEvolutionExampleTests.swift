import Foundation
import Persistible
import Testing

// The code examples of the DocC article "Model evolution" and of the evolution symbols' documentation, copied as
// they stand there, each in a namespace of its own so that its `Task` is the example's; what an example declares in
// an `extension` is declared in the type, where the namespace's names resolve, and `print` is captured. The README's
// first example is run by `DefaultPrecedenceTests`, its second here, the "Settings and Editing" one by
// `SettingsMissingKeyTests`.

/// "A field added with a default" and "A field renamed, or its type changed": one `Task`, both declarations.
enum ArticleExample {
    struct Task: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var priority: Int = 0          // new in version 2
        var hours: Int = 0             // new in version 2, was `estimate` in version 1

        static var archiveDefaults: Task? { Task(id: "", title: "") }

        static var archiveMigrations: [ArchiveMigration<Task>] {
            [.from(TaskV1.Task.self) { old in
                Task(id: old.id, title: old.name, hours: Int(old.estimate.dropLast()) ?? 0)
            }]
        }
    }

    enum TaskV1 {
        struct Task: Codable { var id: String; var name: String; var estimate: String }
    }
}

/// "A field renamed, or its type changed": a chain of versions, each step declared once.
enum ChainExample {
    enum TaskV1 {
        struct Task: Codable { var id: String; var name: String }
    }

    struct TaskV2: Codable {
        var id: String
        var title: String

        static let fromV1 = ArchiveMigration<TaskV2>.from(TaskV1.Task.self) { TaskV2(v1: $0) }
    }

    struct Task: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var done = false

        static var archiveMigrations: [ArchiveMigration<Task>] {
            [.from(TaskV2.self, Task.init(v2:)), TaskV2.fromV1.then(Task.init(v2:))]
        }
    }
}

extension ChainExample.TaskV2 {
    init(v1: ChainExample.TaskV1.Task) { self.init(id: v1.id, title: v1.name) }
}

extension ChainExample.Task {
    init(v2: ChainExample.TaskV2) { self.init(id: v2.id, title: v2.title) }
}

/// The examples of `Persistible.archiveDefaults` and `Persistible.archiveMigrations`: one `Task`.
enum SymbolExample {
    struct TaskV1: Codable { var name: String }

    struct Task: Codable, Hashable, Persistible {
        var title: String
        var priority: Int = 0   // added in version 2

        static var archiveDefaults: Task? { Task(title: "") }

        static var archiveMigrations: [ArchiveMigration<Task>] {
            [.from(TaskV1.self) { old in Task(title: old.name) }]
        }
    }
}

/// The examples of `ArchiveMigration`, `from(_:_:)` and `then(_:)`.
enum MigrationExample {
    enum TaskV1 { struct Task: Codable { var title: String; var done: Bool } }

    struct Task: Codable, Hashable, Persistible {
        enum State: String, Codable { case open, done }
        var title: String
        var state: State

        static var archiveMigrations: [ArchiveMigration<Task>] {
            [.from(TaskV1.Task.self) { old in Task(title: old.title, state: old.done ? .done : .open) }]
        }
    }

    struct V1: Codable { var name: String }
    struct V2: Codable {
        var title: String
        init(v1: V1) { title = v1.name }

        static let fromV1 = ArchiveMigration<V2>.from(V1.self) { V2(v1: $0) }
    }
    struct V3: Codable, Hashable, Persistible {
        var title: String
        var pinned = false
        init(v2: V2) { title = v2.title }

        static var archiveMigrations: [ArchiveMigration<V3>] {
            [.from(V2.self, V3.init(v2:)), V2.fromV1.then(V3.init(v2:))]
        }
    }
}

/// "An older version working beside a newer one's records", also the README's second "Model evolution" example:
/// version 1 of the todo app.
enum OlderVersionExample {
    struct Todo: Codable, Hashable, Identifiable, Persistible {
        enum State: String, Codable { case open, done }   // version 2 adds `archived`
        var id: String
        var title: String
        var state: State

        static var archiveSkipsUnreadableRecords: Bool { true }
    }
}

/// Version 2 of the same app, which wrote the file version 1 then finds.
enum NewerVersionExample {
    struct Todo: Codable, Hashable, Identifiable, Persistible {
        enum State: String, Codable { case open, done, archived }
        var id: String
        var title: String
        var state: State
    }
}

@Suite struct DocumentedEvolutionExampleTests {
    /// "An older version working beside a newer one's records".
    @Test func theArticlesOlderVersionKeepsWorkingAndTellsItsUser() throws {
        typealias Todo = OlderVersionExample.Todo
        typealias TodoV2 = NewerVersionExample.Todo
        try inTemporaryDirectory { _ in
            try [
                TodoV2(id: "1", title: "Buy milk", state: .open), TodoV2(id: "2", title: "Old tax forms", state: .archived),
                TodoV2(id: "3", title: "Read", state: .done),
            ].saveToFile()
            let written = try bytes(of: TodoV2.self)
            var printed: [String] = []
            func print(_ item: Any) { printed.append("\(item)") }

            let todos = try Todo.loadListFromFile()                 // the todos version 1 reads
            let kept = try Todo.unreadableRecords()                 // the others, with what each version said
            if kept.count == 1 {
                print("1 record was written by a newer version and is kept as it is")
            } else if kept.count > 1 {
                print("\(kept.count) records were written by a newer version and are kept as they are")
            }
            try Todo(id: "4", title: "Call Amy", state: .open).saveToFile()   // the archived todo stays as it was

            #expect(todos.map(\.id) == ["1", "3"])
            #expect(printed == ["1 record was written by a newer version and is kept as it is"])
            #expect(kept.first?.index == 1)
            #expect(kept.first?.message.contains("archived") == true, "\(kept)")
            // The file is version 2's, byte for byte up to its closing bracket, with version 1's todo after it.
            #expect(try bytes(of: Todo.self).starts(with: written.dropLast(3)))
            #expect(try TodoV2.loadListFromFile().map(\.state) == [.open, .archived, .done, .open])
        }
    }


    @Test func theArticlesTaskReadsEveryVersionWithItsDefaultsAndMigration() throws {
        typealias Task = ArticleExample.Task
        try inTemporaryDirectory { _ in
            try install(
                json: #"[{"id":"a","name":"Buy milk","estimate":"3h"},{"id":"b","title":"Call Amy"},"#
                    + #"{"id":"c","title":"Read","priority":2,"hours":1}]"#,
                as: Task.self
            )
            #expect(try Task.loadListFromFile() == [
                Task(id: "a", title: "Buy milk", hours: 3), Task(id: "b", title: "Call Amy"),
                Task(id: "c", title: "Read", priority: 2, hours: 1),
            ])
        }
    }

    @Test func theArticlesChainReadsEachVersion() throws {
        typealias Task = ChainExample.Task
        try inTemporaryDirectory { _ in
            try install(
                json: #"[{"id":"a","name":"One"},{"id":"b","title":"Two"},{"id":"c","title":"Three","done":true}]"#,
                as: Task.self
            )
            #expect(try Task.loadListFromFile() == [
                Task(id: "a", title: "One"), Task(id: "b", title: "Two"), Task(id: "c", title: "Three", done: true),
            ])
        }
    }

    /// "Telling damage from a version mismatch".
    @Test func theArticlesMismatchExampleCatchesAFileNoVersionReads() throws {
        typealias Task = ArticleExample.Task
        try inTemporaryDirectory { _ in
            try install(json: #"[{"id":"a","title":"Buy milk"},{"id":"b","title":7}]"#, as: Task.self)
            var tasks: [Task] = []
            var printed: [String] = []
            func print(_ item: Any) { printed.append("\(item)") }
            do {
                tasks = try Task.loadListFromFile()
            } catch let error as PersistenceError where error.versionMismatch != nil {
                print(error)   // "... record 3 does not match Task at [3].state: ... declare archiveDefaults ..."
            }
            #expect(tasks.isEmpty)
            #expect(printed.count == 1)
            #expect(printed.first?.contains("[1].title") == true, "\(printed)")
            // In either case: the advice may open a sentence of its own.
            #expect(printed.first?.range(of: "declare archiveDefaults", options: .caseInsensitive) != nil, "\(printed)")
        }
    }

    /// "Salvage and move aside".
    @Test func theArticlesSalvageExampleKeepsEveryByte() throws {
        typealias Task = ArticleExample.Task
        try inTemporaryDirectory { _ in
            let damaged = #"[{"id":"a","name":"Buy milk","estimate":"2h"},{"id":"b","title":"#
            try install(json: damaged, as: Task.self)
            let salvaged = try Task.salvageFile()           // writes nothing
            let aside = try Task.moveFileAside()            // Task.unreadable-20261123T064002Z.json, beside it
            try salvaged.values.saveToFile()                // start again with what could be read
            #expect(try Data(contentsOf: aside) == Data(damaged.utf8))
            #expect(try Task.loadListFromFile() == [Task(id: "a", title: "Buy milk", hours: 2)])
            #expect(aside.deletingLastPathComponent().standardizedFileURL
                == Task.archiveUrl.deletingLastPathComponent().standardizedFileURL)
        }
    }

    @Test func theDefaultsAndMigrationsSymbolExamplesReadBothVersions() throws {
        typealias Task = SymbolExample.Task
        try inTemporaryDirectory { _ in
            try install(
                json: #"[{"name":"Buy milk"},{"title":"Read"},{"title":"Call Amy","priority":2}]"#, as: Task.self
            )
            #expect(try Task.loadListFromFile() == [
                Task(title: "Buy milk"), Task(title: "Read"), Task(title: "Call Amy", priority: 2),
            ])
        }
    }

    @Test func theArchiveMigrationExamplesConvertEachVersion() throws {
        try inTemporaryDirectory { _ in
            typealias Task = MigrationExample.Task
            try install(json: #"[{"title":"Buy milk","done":true},{"title":"Read","state":"open"}]"#, as: Task.self)
            #expect(try Task.loadListFromFile() == [
                Task(title: "Buy milk", state: .done), Task(title: "Read", state: .open),
            ])

            typealias V3 = MigrationExample.V3
            typealias V2 = MigrationExample.V2
            try install(json: #"[{"name":"One"},{"title":"Two"},{"title":"Three","pinned":true}]"#, as: V3.self)
            #expect(try V3.loadListFromFile().map(\.title) == ["One", "Two", "Three"])
            let fromV1ToV3 = V2.fromV1.then { v2 in V3(v2: v2) }
            #expect(fromV1ToV3.sourceTypeName.hasSuffix("V1"))
        }
    }

    /// The examples of `salvageFile()`, `SalvagedRecords` and `VersionMismatch`.
    @Test func theSalvageAndMismatchSymbolExamplesSayWhatDoesNotRead() throws {
        typealias Task = SymbolExample.Task
        try inTemporaryDirectory { _ in
            try install(json: #"[{"title":"Read"},{"title":7}]"#, as: Task.self)
            var printed: [String] = []
            func print(_ item: Any) { printed.append("\(item)") }
            do {
                _ = try Task.loadListFromFile()
            } catch let error as PersistenceError {
                if let mismatch = error.versionMismatch {
                    print("Record \(mismatch.record ?? 0): \(mismatch.attempts.map(\.detail))")
                }
            }
            let salvaged = try Task.salvageFile()
            for record in salvaged.unreadable {
                print("Record \(record.index) at \(record.codingPath): \(record.message)")
            }
            let aside = try Task.moveFileAside()
            try salvaged.values.saveToFile()
            print("Kept \(salvaged.values.count); the rest is in \(aside.path)")
            #expect(printed.count == 3, "\(printed)")
            #expect(printed.first?.hasPrefix("Record 1: ") == true, "\(printed)")
            #expect(printed.dropFirst().first?.hasPrefix("Record 1 at [1].title: ") == true, "\(printed)")
            #expect(printed.last?.hasPrefix("Kept 1; the rest is in ") == true, "\(printed)")
            #expect(try Task.loadListFromFile() == [Task(title: "Read")])
        }
    }
}
