import Foundation
import Persistible
import Testing

// The code examples of the DocC article "Model evolution", copied as they stand there, each in a namespace of its
// own so that its `Task` is the example's; what the article declares in an `extension` is declared in the type,
// where the namespace's names resolve. The README's example is run by `DefaultPrecedenceTests`.

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

@Suite struct DocumentedEvolutionExampleTests {
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
            #expect(printed.first?.contains("declare archiveDefaults") == true, "\(printed)")
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
}
