import Foundation
import Persistible
import Testing

/// Values of `Identifiable` types in the article API, and files that hold one identity several times.
@Suite struct IdentityTests {
    @Test func savingAnEditedValueReplacesItAndASingleValueStaysSingle() throws {
        try inTemporaryDirectory { _ throws in
            var todo = Todo(id: 1, title: "milk")
            #expect(try todo.saveToFile())
            todo.done = true
            #expect(try todo.saveToFile())
            #expect(try Todo.load() == .single(todo))
            #expect(try todo.saveToFile() == false)
            #expect(try Todo.loadFromFile() == todo)
        }
    }

    @Test func savingAnEditedValueKeepsItsPositionInAnArray() throws {
        try inTemporaryDirectory { _ throws in
            let milk = Todo(id: 1, title: "milk")
            let bread = Todo(id: 2, title: "bread")
            let eggs = Todo(id: 3, title: "eggs")
            #expect(try [milk, bread, eggs].saveToFile() == 3)
            var edited = bread
            edited.done = true
            #expect(try edited.saveToFile())
            #expect(try Todo.load() == .array([milk, edited, eggs]))

            // An array save replaces each stored id and appends new ones in order; it counts both.
            let butter = Todo(id: 4, title: "butter")
            let renamed = Todo(id: 1, title: "oat milk")
            #expect(try [butter, renamed, eggs].saveToFile() == 2)
            #expect(try Todo.load() == .array([renamed, edited, eggs, butter]))
            #expect(try [butter, renamed].saveToFile() == 0)
        }
    }

    @Test func aNewValueSavedOverASingleValueMakesAnArray() throws {
        try inTemporaryDirectory { _ throws in
            try Todo(id: 1, title: "milk").saveToFile()
            try Todo(id: 2, title: "bread").saveToFile()
            #expect(try Todo.load() == .array([Todo(id: 1, title: "milk"), Todo(id: 2, title: "bread")]))
        }
    }

    @Test func ofTwoValuesWithOneIDInASavedArrayTheLaterIsKept() throws {
        try inTemporaryDirectory { _ throws in
            let first = Todo(id: 1, title: "first")
            let later = Todo(id: 1, title: "later")
            try [first, Todo(id: 2, title: "two"), later].saveToFile()
            #expect(try Todo.loadListFromFile() == [later, Todo(id: 2, title: "two")])

            try [Todo(id: 3, title: "three"), Todo(id: 3, title: "three, edited")].saveToFile()
            #expect(try Todo.loadListFromFile().last == Todo(id: 3, title: "three, edited"))
        }
    }

    @Test func valuesThatAreNotIdentifiableKeepTheArticlesRule() throws {
        try inTemporaryDirectory { _ throws in
            #expect(try Settings().saveToFile())
            #expect(try Settings().saveToFile() == false)
            #expect(try Settings(fontSize: 14).saveToFile())
            #expect(try Settings.load() == .array([Settings(), Settings(fontSize: 14)]))
            #expect(try [Settings(), Settings(fontSize: 16), Settings(fontSize: 16)].saveToFile() == 1)
        }
    }

    // MARK: - One identity stored several times

    /// How a file that holds one identity several times is changed, through each API.
    enum Interface: String, CaseIterable, Sendable {
        case article
        case store

        func save(_ todo: Todo) throws {
            switch self {
            case .article: try todo.saveToFile()
            case .store: try FileStore<Todo>().insert(todo)
            }
        }

        func remove(_ todo: Todo) throws {
            switch self {
            case .article: try todo.removeFromFile()
            case .store: try FileStore<Todo>().delete(todo)
            }
        }

        func all() throws -> [Todo] {
            switch self {
            case .article: try Todo.loadListFromFile()
            case .store: try FileStore<Todo>().all()
            }
        }
    }

    private let first = Todo(id: 1, title: "first")
    private let other = Todo(id: 2, title: "other")
    private let second = Todo(id: 1, title: "second")

    /// Writes a file, as an older version or another tool may, that holds the id 1 twice.
    private func writeRepeatedIdentity() throws {
        try JSONEncoder().encode([first, other, second]).write(to: Todo.archiveUrl)
    }

    @Test(arguments: Interface.allCases)
    func readsReturnWhatIsStored(_ interface: Interface) throws {
        try inTemporaryDirectory { _ throws in
            try writeRepeatedIdentity()
            #expect(try interface.all() == [first, other, second])
        }
    }

    /// Asserts that `change` threw `repeatedIdentity` naming records 0 and 2, and left the file byte for byte.
    private func expectRefused(_ change: () throws -> Void) throws {
        let before = try Data(contentsOf: Todo.archiveUrl)
        let error = persistenceError { try change() }
        #expect(error?.reason == .repeatedIdentity(identity: "1", records: [0, 2]))
        #expect(error?.description.contains("records 0, 2") == true)
        #expect(try Data(contentsOf: Todo.archiveUrl) == before)
    }

    @Test(arguments: Interface.allCases)
    func removingAnIdentityStoredTwiceIsRefused(_ interface: Interface) throws {
        try inTemporaryDirectory { _ throws in
            try writeRepeatedIdentity()
            try expectRefused { try interface.remove(Todo(id: 1, title: "whatever")) }
        }
    }

    @Test(arguments: Interface.allCases)
    func savingAnIdentityStoredTwiceIsRefusedWhicheverValueItGives(_ interface: Interface) throws {
        try inTemporaryDirectory { _ throws in
            try writeRepeatedIdentity()
            try expectRefused { try interface.save(Todo(id: 1, title: "edited")) }
            try expectRefused { try interface.save(first) }
            // Once the file is read and cached, the same.
            #expect(try interface.all() == [first, other, second])
            try expectRefused { try interface.save(second) }
        }
    }

    @Test func lookingUpAnIdentityStoredTwiceIsRefused() throws {
        try inTemporaryDirectory { _ throws in
            try writeRepeatedIdentity()
            try expectRefused { _ = try Todo.loadFromFile(id: 1) }
            #expect(try Todo.loadFromFile(id: 2) == other)
            _ = try Todo.loadListFromFile()
            try expectRefused { _ = try Todo.loadFromFile(id: 1) }
        }
    }

    @Test func aStoresUpdateOfAnIdentityStoredTwiceIsRefused() throws {
        try inTemporaryDirectory { _ throws in
            try writeRepeatedIdentity()
            try expectRefused { try FileStore<Todo>().update(Todo(id: 1, title: "edited")) }
        }
    }

    @Test func writesOfOtherIdentitiesKeepBothRecords() throws {
        try inTemporaryDirectory { _ throws in
            try writeRepeatedIdentity()
            let third = Todo(id: 3, title: "third")
            var edited = other
            edited.done = true
            try third.saveToFile()
            try edited.saveToFile()
            #expect(try Todo.loadListFromFile() == [first, edited, second, third])
            try FileStore<Todo>().write { writer in
                writer.insert(other)
                writer.delete(third)
            }
            #expect(try Todo.loadListFromFile() == [first, other, second])
            try Todo.updateList { $0.append(third) }
            #expect(try Todo.loadListFromFile() == [first, other, second, third])
            // Writes that take every record make the file hold what they are given.
            let changes = try FileStore<Todo>().synchronize(with: [first, third])
            #expect(changes.removed == [other, second])
            #expect(try Todo.loadListFromFile() == [first, third])
        }
    }
}

/// Values another process appends are found by `id` by the next save here.
@Suite struct IdentityAcrossProcessesTests {
    @Test func aValueAnotherProcessAppendedIsReplacedNotDuplicated() throws {
        try inTemporaryDirectory { directory in
            // This process knows the file, and where each id stands, before the other one appends.
            try StressRecord(id: "here").saveToFile()
            try StressRecord(id: "here-2").saveToFile()
            let child = try ChildProcess.run("StressWriter", ["append", directory.path, "there", "2"])
            #expect(child.status == 0, "\(child.errors)")
            var edited = StressRecord(id: "there-1")
            edited.payload = "edited"
            #expect(try edited.saveToFile())
            #expect(try StressRecord.loadListFromFile().map(\.id) == ["here", "here-2", "there-0", "there-1"])
            #expect(try StressRecord.loadListFromFile().last == edited)
        }
    }
}

/// One rule for values with one identity, whichever path writes them: they count as saved one after the other, so
/// the later value stands where the first of them stood. And every read returns a file's records as stored.
@Suite struct OneIdentityRuleTests {
    private let milk = Todo(id: 1, title: "milk")
    private let bread = Todo(id: 2, title: "bread")
    private let oatMilk = Todo(id: 1, title: "oat milk")

    @Test func everyWriteKeepsTheLaterOfTwoValuesWithOneIdentityWhereTheFirstStood() throws {
        try inTemporaryDirectory { _ in
            let given = [milk, bread, oatMilk]
            try given.saveToFile()
            #expect(try Todo.loadListFromFile() == [oatMilk, bread])
            try Todo.deleteFile()
            try given.overwriteFile()
            #expect(try Todo.loadListFromFile() == [oatMilk, bread])
            try Todo.deleteFile()
            let store = FileStore<Todo>()
            try store.replaceAll(with: given)
            #expect(try store.all() == [oatMilk, bread])
            try store.deleteAll()
            let changes = try store.synchronize(with: given)
            #expect(changes.added == [oatMilk, bread])
            #expect(try store.all() == [oatMilk, bread])
            try store.insert(contentsOf: [bread, milk])
            #expect(try store.all() == [milk, bread])

            let memory = MemoryStore<Todo>()
            try memory.replaceAll(with: given)
            #expect(try memory.all() == [oatMilk, bread])
            try memory.synchronize(with: [bread, milk, bread])
            #expect(try memory.all() == [bread, milk])
        }
    }

    @Test func everyReadReturnsAHandEditedFileWithARepeatedIdentityAsStored() throws {
        try inTemporaryDirectory { _ in
            try Data(#"[{"id":1,"title":"milk","done":false},{"id":2,"title":"bread","done":false},{"id":1,"title":"oat milk","done":false}]"#.utf8)
                .write(to: Todo.archiveUrl)
            let stored = [milk, bread, oatMilk]
            #expect(try Todo.loadListFromFile() == stored)
            let store = FileStore<Todo>()
            #expect(try store.all() == stored)
            #expect(try store.filter(where: \.id >= 1).result() == stored)
            #expect(try store.filter(where: \.id == 1).count() == 2)
            #expect(try store.read { try $0.filter(where: \.id >= 1).result() } == stored)
            #expect(try store.write { try $0.filter(where: \.id >= 1).result() } == stored)
            // Records given to a new store count as inserted one after the other, as a write's do.
            #expect(try MemoryStore(stored).all() == [oatMilk, bread])
        }
    }
}
