import Foundation
import Persistible
import Testing

/// Settings: load with a default, update in place, overwrite.
@Suite struct UpdatingTests {
    @Test func loadingWithADefaultGivesTheDefaultWhenNothingIsSavedAndWritesNothing() throws {
        try inTemporaryDirectory { directory in
            let settings = try Settings.loadFromFile(default: Settings(theme: "dark"))
            #expect(settings == Settings(theme: "dark"))
            #expect(try directory.contents().isEmpty)
        }
    }

    @Test func loadingWithADefaultGivesTheStoredValueAndNeverTheDefaultForAnArray() throws {
        try inTemporaryDirectory { _ in
            try Settings(fontSize: 14).saveToFile()
            var evaluated = false
            let loaded = try Settings.loadFromFile(default: { evaluated = true; return Settings() }())
            #expect(loaded == Settings(fontSize: 14))
            #expect(!evaluated, "the default is evaluated only when there is no file")

            try [Settings(), Settings(fontSize: 14)].overwriteFile()
            #expect(persistenceError { _ = try Settings.loadFromFile(default: Settings()) }?.reason
                == .holdsArray(count: 2))
        }
    }

    @Test(arguments: unreadableContents)
    func loadingWithADefaultThrowsForAnUnreadableFile(_ contents: String) throws {
        try inTemporaryDirectory { _ in
            try Data(contents.utf8).write(to: Settings.archiveUrl)
            let error = persistenceError { _ = try Settings.loadFromFile(default: Settings()) }
            guard case .unreadable = error?.reason else {
                Issue.record("expected unreadable, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func anUpdateStartsFromTheDefaultAndKeepsTheFileASingleValue() throws {
        try inTemporaryDirectory { _ in
            let first = try Settings.update(default: Settings()) { $0.fontSize = 14 }
            #expect(first == Settings(fontSize: 14))
            try Settings.update(default: Settings()) { $0.fontSize = 12 }
            // Changed back: the file says 12, as a single value, not a list of versions.
            #expect(try Settings.load() == .single(Settings(fontSize: 12)))
            #expect(try Settings.loadFromFile() == Settings(fontSize: 12))
        }
    }

    @Test func anUpdateThatChangesNothingWritesNothing() throws {
        try inTemporaryDirectory { _ in
            try Settings.update(default: Settings()) { $0.theme = "dark" }
            let before = try FileVersion(of: Settings.archiveUrl)
            let result = try Settings.update(default: Settings()) { $0.theme = "dark" }
            #expect(result == Settings(theme: "dark"))
            #expect(try FileVersion(of: Settings.archiveUrl) == before)
        }
    }

    @Test func anUpdateWithNoFileWritesTheResultEvenWhenItIsTheDefault() throws {
        try inTemporaryDirectory { _ in
            try Settings.update(default: Settings()) { _ in }
            #expect(try Settings.load() == .single(Settings()))
        }
    }

    @Test func anUpdateWhoseBodyThrowsWritesNothing() throws {
        struct Refused: Error {}
        try inTemporaryDirectory { directory in
            #expect(throws: Refused.self) {
                try Settings.update(default: Settings()) { _ in throw Refused() }
            }
            #expect(try directory.contents().filter { !$0.hasSuffix(".lock") }.isEmpty)

            try Settings(fontSize: 20).saveToFile()
            let before = try Data(contentsOf: Settings.archiveUrl)
            let version = try FileVersion(of: Settings.archiveUrl)
            #expect(throws: Refused.self) {
                try Settings.update(default: Settings()) { settings in
                    settings.fontSize = 30
                    throw Refused()
                }
            }
            #expect(try Data(contentsOf: Settings.archiveUrl) == before)
            #expect(try FileVersion(of: Settings.archiveUrl) == version)
            #expect(try Settings.loadFromFile() == Settings(fontSize: 20))
        }
    }

    @Test func anUpdateOfAFileThatHoldsAnArrayThrowsAndLeavesIt() throws {
        try inTemporaryDirectory { _ in
            try [Settings(), Settings(fontSize: 14)].saveToFile()
            let before = try Data(contentsOf: Settings.archiveUrl)
            var ran = false
            let error = persistenceError {
                try Settings.update(default: Settings()) { _ in ran = true }
            }
            #expect(error?.reason == .holdsArray(count: 2))
            #expect(!ran)
            #expect(try Data(contentsOf: Settings.archiveUrl) == before)
        }
    }

    @Test(arguments: unreadableContents)
    func updatesAndOverwritesNeverReplaceAnUnreadableFile(_ contents: String) throws {
        try inTemporaryDirectory { directory in
            let original = Data(contents.utf8)
            try original.write(to: Settings.archiveUrl)
            expectUnreadableFileKept(at: Settings.archiveUrl, original: original, by: [
                { try Settings.update(default: Settings()) { $0.fontSize += 1 } },
                { try Settings(fontSize: 99).overwriteFile() },
                { try [Settings(fontSize: 99)].overwriteFile() },
                { try [Settings]().overwriteFile() },
            ])
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func updatesFromSeveralThreadsAreAllKept() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url
        let threads = 4
        let increments = 100
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            withArchiveDirectory(url) {
                for _ in 0..<increments {
                    #expect(throws: Never.self) { try SharedCounter.update(default: SharedCounter(value: 0)) { $0.value += 1 } }
                }
            }
        }
        let total = try withArchiveDirectory(url) { try SharedCounter.loadFromFile() }
        #expect(total == SharedCounter(value: threads * increments))
    }

    @Test func updatesFromSeveralProcessesAreAllKept() throws {
        let directory = try TemporaryDirectory()
        let increments = 500
        let children = try (0..<2).map { _ in
            try ChildProcess("SettingsWriter", ["increment", directory.path, String(increments)])
        }
        // This process updates the same file meanwhile, from a thread of its own.
        let url = directory.url
        withArchiveDirectory(url) {
            for _ in 0..<100 {
                #expect(throws: Never.self) { try SharedCounter.update(default: SharedCounter(value: 0)) { $0.value += 1 } }
            }
        }
        for child in children {
            let result = child.finish()
            #expect(result.status == 0, "\(result.errors)")
        }
        let total = try withArchiveDirectory(url) {
            SharedCounter.clearArchiveCache()
            return try SharedCounter.load()
        }
        #expect(total == .single(SharedCounter(value: 2 * increments + 100)))
    }

    @Test func overwritingReplacesWhateverReadableValueOrArrayTheFileHeld() throws {
        try inTemporaryDirectory { _ in
            try [Settings(), Settings(fontSize: 14)].saveToFile()
            try Settings(theme: "dark").overwriteFile()
            #expect(try Settings.load() == .single(Settings(theme: "dark")))

            try Settings(theme: "blue").overwriteFile()
            #expect(try Settings.load() == .single(Settings(theme: "blue")))

            try [sam, amy].saveToFile()
            try [maame, sam, maame, amy].overwriteFile()
            #expect(try Person.load() == .array([maame, sam, amy]))
        }
    }

    /// An empty array is an array like any other: a value written over it is written as a single value.
    @Test func overwritingAnEmptyArrayWithAValueWritesASingleValue() throws {
        try inTemporaryDirectory { _ in
            try [Settings]().overwriteFile()
            #expect(try Settings.load() == .array([]))
            try Settings(theme: "dark").overwriteFile()
            #expect(try Settings.load() == .single(Settings(theme: "dark")))
        }
    }

    @Test func overwritingWithAnEmptyArrayLeavesAnEmptyArray() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            try [Person]().overwriteFile()
            #expect(FileManager.default.fileExists(atPath: Person.archiveUrl.path))
            #expect(try Person.load() == .array([]))
            let json = try JSONSerialization.jsonObject(with: bytes(of: Person.self)) as? [Any]
            #expect(json?.isEmpty == true)
        }
    }

    @Test func overwritingWithWhatTheFileHoldsWritesNothing() throws {
        try inTemporaryDirectory { _ in
            try Settings(theme: "dark").overwriteFile()
            let single = try FileVersion(of: Settings.archiveUrl)
            try Settings(theme: "dark").overwriteFile()
            #expect(try FileVersion(of: Settings.archiveUrl) == single)

            // An array of that one value is not what the file holds: it is written.
            try [Settings(theme: "dark")].overwriteFile()
            #expect(try Settings.load() == .array([Settings(theme: "dark")]))
            let array = try FileVersion(of: Settings.archiveUrl)
            try [Settings(theme: "dark"), Settings(theme: "dark")].overwriteFile()
            #expect(try FileVersion(of: Settings.archiveUrl) == array)
        }
    }

    @Test func overwritingKeepsTheLastOfSeveralValuesWithOneIdentityWhereTheFirstStood() throws {
        try inTemporaryDirectory { _ in
            let first = Todo(id: 1, title: "first")
            try [first, Todo(id: 2, title: "two"), Todo(id: 1, title: "again")].overwriteFile()
            #expect(try Todo.loadListFromFile() == [Todo(id: 1, title: "again"), Todo(id: 2, title: "two")])
        }
    }

    // MARK: - A list changed in one step

    @Test func updatingAListReadsChangesAndWritesItInOneStep() throws {
        try inTemporaryDirectory { _ in
            let first = try Todo.updateList { todos -> Int in
                #expect(todos.isEmpty)
                todos.append(Todo(id: 1, title: "milk"))
                return todos.count
            }
            #expect(first == 1)
            #expect(try Todo.load() == .array([Todo(id: 1, title: "milk")]))
            try Todo.updateList { todos in
                todos[0].done = true
                todos.append(Todo(id: 2, title: "bread"))
                // Two values with one id: the later stands where the first stood.
                todos.append(Todo(id: 1, title: "oat milk"))
            }
            #expect(try Todo.loadListFromFile() == [Todo(id: 1, title: "oat milk"), Todo(id: 2, title: "bread")])
            #expect(try Todo.loadFromFile(id: 2) == Todo(id: 2, title: "bread"))
            #expect(try Todo.loadFromFile(id: 3) == nil)
        }
    }

    /// The README's example of a record under the next free number, as it stands there.
    @Test func theReadmesNextFreeIdExampleAddsAndLooksUp() throws {
        try inTemporaryDirectory { _ in
            try [Todo(id: 1, title: "Buy milk"), Todo(id: 4, title: "Call Amy")].saveToFile()
            let id = try Todo.updateList { todos in
                let id = (todos.map(\.id).max() ?? 0) + 1
                todos.append(Todo(id: id, title: "Buy bread"))
                return id
            }
            let added = try Todo.loadFromFile(id: id)      // one record by its id; nil if there is none, or no file
            #expect(id == 5)
            #expect(added == Todo(id: 5, title: "Buy bread"))
        }
    }

    @Test func updatingAListThatItLeavesAsItWasOrThatThrowsWritesNothing() throws {
        try inTemporaryDirectory { _ in
            try Todo(id: 1, title: "milk").saveToFile()
            let single = try FileVersion(of: Todo.archiveUrl)
            try Todo.updateList { todos in #expect(todos == [Todo(id: 1, title: "milk")]) }
            // A single value stays one when nothing changed.
            #expect(try FileVersion(of: Todo.archiveUrl) == single)
            struct Refusal: Error {}
            #expect(throws: Refusal.self) {
                try Todo.updateList { todos in
                    todos.removeAll()
                    throw Refusal()
                }
            }
            #expect(try FileVersion(of: Todo.archiveUrl) == single)
            #expect(try Todo.load() == .single(Todo(id: 1, title: "milk")))
        }
    }

    @Test func lookingUpAnIdNeedsNoFile() throws {
        try inTemporaryDirectory { _ in
            #expect(try Todo.loadFromFile(id: 1) == nil)
            try Data("not json".utf8).write(to: Todo.archiveUrl)
            let error = persistenceError { _ = try Todo.loadFromFile(id: 1) }
            guard case .unreadable = error?.reason else {
                Issue.record("expected unreadable, got \(String(describing: error))")
                return
            }
        }
    }
}
