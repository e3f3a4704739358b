import Foundation
import Persistible
import Testing

/// Removing values from a file: by value, by `id`, or by a condition.
@Suite struct RemovingTests {
    @Test func removingAValueRemovesEveryEqualValueAndKeepsTheOthersInOrder() throws {
        try inTemporaryDirectory { _ in
            // Written by other means: the package never stores a value twice.
            try JSONEncoder().encode([sam, amy, sam, maame]).write(to: Person.archiveUrl)
            #expect(try sam.removeFromFile())
            #expect(try Person.load() == .array([amy, maame]))

            let before = try FileVersion(of: Person.archiveUrl)
            #expect(try sam.removeFromFile() == false)
            #expect(try FileVersion(of: Person.archiveUrl) == before)
        }
    }

    @Test func removingFromAMissingFileRemovesNothingAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let inside = directory.url.appendingPathComponent("inside", isDirectory: true)
        try withArchiveDirectory(inside) { () throws in
            #expect(try sam.removeFromFile() == false)
            #expect(try Person.removeFromFile { _ in true } == 0)
        }
        #expect(try directory.contents().isEmpty)

        try withArchiveDirectory(directory.url) { () throws in
            #expect(try sam.removeFromFile() == false)
            #expect(!FileManager.default.fileExists(atPath: Person.archiveUrl.path))
        }
    }

    @Test func removingTheOnlyValueLeavesAnEmptyArray() throws {
        try inTemporaryDirectory { _ in
            try Settings().saveToFile()
            #expect(try Settings(fontSize: 99).removeFromFile() == false)
            #expect(try Settings.load() == .single(Settings()))
            #expect(try Settings().removeFromFile())
            #expect(try Settings.load() == .array([]))
        }
    }

    @Test func removingWhereAConditionHoldsReturnsHowManyWereRemoved() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy, maame].saveToFile()
            #expect(try Person.removeFromFile { $0.age == 25 } == 2)
            #expect(try Person.load() == .array([sam]))
            #expect(try Person.removeFromFile { $0.age == 25 } == 0)
            #expect(try Person.removeFromFile { _ in true } == 1)
            #expect(try Person.load() == .array([]))
        }
    }

    @Test func aConditionThatThrowsRemovesNothing() throws {
        struct Refused: Error {}
        try inTemporaryDirectory { _ in
            try [sam, amy, maame].saveToFile()
            let before = try Data(contentsOf: Person.archiveUrl)
            #expect(throws: Refused.self) {
                try Person.removeFromFile { person in
                    if person == maame { throw Refused() }
                    return true
                }
            }
            #expect(try Data(contentsOf: Person.archiveUrl) == before)
        }
    }

    @Test func removingAnIdentifiableValueRemovesTheStoredValueWithItsID() throws {
        try inTemporaryDirectory { _ in
            try [Todo(id: 1, title: "milk"), Todo(id: 2, title: "bread")].saveToFile()
            var edited = Todo(id: 1, title: "milk")
            edited.done = true
            #expect(try edited.removeFromFile())
            #expect(try Todo.loadListFromFile() == [Todo(id: 2, title: "bread")])
        }
    }

    @Test(arguments: unreadableContents)
    func removingNeverReplacesAnUnreadableFile(_ contents: String) throws {
        try inTemporaryDirectory { directory in
            let original = Data(contents.utf8)
            try original.write(to: Person.archiveUrl)
            expectUnreadableFileKept(at: Person.archiveUrl, original: original, by: [
                { try sam.removeFromFile() },
                { try Person.removeFromFile { _ in true } },
            ])
            #expect(try directory.temporaries().isEmpty)
        }
    }
}
