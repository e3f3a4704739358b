import Foundation
import Persistible
import Testing

/// A type that chooses its own directory, which wins over `withArchiveDirectory`.
private struct Pinned: Codable, Hashable, Persistible {
    var number: Int

    static var archiveDirectory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("persistible-pinned-\(getpid())", isDirectory: true)
    }
}

/// A generic type nested in another, whose name as `String(describing:)` writes it is the default file name.
private enum Outer {
    struct Tagged<Tag: Codable & Hashable>: Codable, Hashable, Persistible {
        var tag: Tag
    }
}

private struct BadName: Codable, Hashable, Persistible {
    var number: Int
    // Each test that uses this type runs one name; the task-local picks which.
    @TaskLocal static var name = ""
    static var fileName: String { name }
}

@Suite struct LocationTests {
    @Test func theFileIsNamedAfterTheTypeByDefault() throws {
        try inTemporaryDirectory { directory in
            #expect(Note.fileName == "Note")
            #expect(Outer.Tagged<Note>.fileName == "Tagged<Note>")
            #expect(Outer.Tagged<Note>.fileName == String(describing: Outer.Tagged<Note>.self))
            // A private type, whose name an optimizer that inlined the default could fold into another spelling.
            #expect(Pinned.fileName == "Pinned")
            #expect(Note.archiveUrl == directory.file("Note.json"))
            #expect(Person.archiveUrl == directory.file("person_data.json"))
        }
    }

    @Test func theDirectoryAndItsParentsAreCreatedByTheFirstSave() throws {
        let directory = try TemporaryDirectory()
        let nested = directory.url.appendingPathComponent("a/b/c", isDirectory: true)
        try withArchiveDirectory(nested) {
            #expect(!FileManager.default.fileExists(atPath: nested.path))
            try sam.saveToFile()
            #expect(try Person.loadFromFile() == sam)
        }
    }

    @Test func aTypesOwnDirectoryWinsOverTheScopedOne() throws {
        let scoped = try TemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: Pinned.archiveDirectory) }
        try withArchiveDirectory(scoped.url) {
            try Pinned(number: 1).saveToFile()
            #expect(Pinned.archiveUrl.deletingLastPathComponent().path == Pinned.archiveDirectory.path)
            #expect(try Pinned.loadFromFile() == Pinned(number: 1))
        }
        #expect(try scoped.contents().isEmpty)
    }

    @Test(arguments: ["", ".", "..", "../escape", "a/b", "nul\0byte"])
    func anInvalidFileNameThrowsAndWritesNothing(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let inside = directory.url.appendingPathComponent("inside", isDirectory: true)
        BadName.$name.withValue(name) {
            withArchiveDirectory(inside) {
                for operation: () throws -> Void in [
                    { _ = try BadName(number: 1).saveToFile() },
                    { _ = try [BadName(number: 1)].saveToFile() },
                    { _ = try [BadName]().saveToFile() },
                    { _ = try BadName.load() },
                    { try BadName.deleteFile() },
                ] {
                    #expect(persistenceError(operation)?.reason == .invalidFileName(name))
                }
            }
        }
        #expect(try directory.contents().isEmpty)
    }

    @Test func theEnvironmentVariableChoosesTheDirectory() throws {
        let directory = try TemporaryDirectory()
        let result = try ChildProcess.run(
            "PersonDemo", ["path"], environment: ["PERSISTIBLE_DIRECTORY": directory.path]
        )
        #expect(result.status == 0)
        // The first line is the people's file; the second, the settings, which declare their own directory.
        #expect(result.output.split(separator: "\n").first.map(String.init) == directory.file("person_data.json").path)
    }

    @Test func aRelativeEnvironmentVariableIsIgnored() throws {
        let home = try TemporaryDirectory()
        let result = try ChildProcess.run(
            "PersonDemo", ["path"],
            environment: ["PERSISTIBLE_DIRECTORY": "relative/dir", "HOME": home.path, "XDG_DATA_HOME": ""]
        )
        #expect(result.output.split(separator: "\n").first.map(String.init)
            == home.path + "/.local/share/PersonDemo/person_data.json")
    }

    #if os(Linux)
    @Test func onLinuxFilesGoInTheXDGDataDirectoryUnderTheProgramsName() throws {
        let home = try TemporaryDirectory()
        let data = home.url.appendingPathComponent("data", isDirectory: true)
        let withXDG = try ChildProcess.run(
            "PersonDemo", ["add", "Ama", "30", "Legon"],
            environment: ["PERSISTIBLE_DIRECTORY": "", "HOME": home.path, "XDG_DATA_HOME": data.path]
        )
        #expect(withXDG.status == 0)
        #expect(FileManager.default.fileExists(atPath: data.path + "/PersonDemo/person_data.json"))
        let withoutXDG = try ChildProcess.run(
            "PersonDemo", ["path"], environment: ["PERSISTIBLE_DIRECTORY": "", "HOME": home.path, "XDG_DATA_HOME": ""]
        )
        #expect(withoutXDG.output.split(separator: "\n").first.map(String.init)
            == home.path + "/.local/share/PersonDemo/person_data.json")
    }
    #endif
}
