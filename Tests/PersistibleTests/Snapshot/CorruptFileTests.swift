import Foundation
import Persistible
import Testing

/// A file that exists but does not hold `Person` or `[Person]`: every operation throws and the file stays as it was.
@Suite struct CorruptFileTests {
    static let corruptions: [(String, Data)] = [
        ("truncated", Data("[\n  {\n    \"age\" : 35,\n    \"name\" : \"Sam".utf8)),
        ("random bytes", Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })),
        ("wrong schema", Data("[{\"title\": \"Dune\", \"year\": 1965}]".utf8)),
        ("invalid UTF-8", Data([0x5B, 0x22, 0xFF, 0xFE, 0x22, 0x5D])),
        ("a bare number", Data("42".utf8)),
        ("empty", Data()),
        ("whitespace", Data("  \n".utf8)),
        ("an array of the wrong type", Data("[1, 2, 3]".utf8)),
        ("a value of another type", Data("{\"name\": \"Samuel\", \"age\": \"old\", \"school\": \"x\"}".utf8)),
    ]

    @Test(arguments: corruptions.map(\.0))
    func aFileThatDoesNotDecodeIsNeverOverwritten(_ name: String) throws {
        let contents = try #require(Self.corruptions.first { $0.0 == name }?.1)
        try inTemporaryDirectory { directory in
            try contents.write(to: Person.archiveUrl)
            for operation in [
                { _ = try Person.loadFromFile() },
                { _ = try Person.loadListFromFile() },
                { _ = try Person.load() },
                { try Person.load { _ in } },
                { try sam.saveToFile() },
                { try [sam, amy].saveToFile() },
            ] {
                let error = persistenceError(operation)
                guard case .unreadable = error?.reason else {
                    Issue.record("\(name): expected unreadable, got \(String(describing: error))")
                    continue
                }
                #expect(error?.url == Person.archiveUrl)
            }
            #expect(try bytes(of: Person.self) == contents)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aDirectoryInPlaceOfTheFileIsNeverReplaced() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: Person.archiveUrl, withIntermediateDirectories: false)
            try Data("keep".utf8).write(to: Person.archiveUrl.appendingPathComponent("inside"))
            for operation in [{ _ = try Person.load() }, { try sam.saveToFile() }, { try [sam].saveToFile() }] {
                let error = persistenceError(operation)
                #expect(error?.reason == .readFailed(operation: "open", errno: EISDIR))
            }
            #expect(try Data(contentsOf: Person.archiveUrl.appendingPathComponent("inside")) == Data("keep".utf8))
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aFileThatBecomesReadableAgainCanBeSavedTo() throws {
        try inTemporaryDirectory { _ in
            try [sam].saveToFile()
            let good = try bytes(of: Person.self)
            try Data("oops".utf8).write(to: Person.archiveUrl)
            #expect(persistenceError { try amy.saveToFile() } != nil)
            try good.write(to: Person.archiveUrl)
            try amy.saveToFile()
            #expect(try Person.loadListFromFile() == [sam, amy])
        }
    }
}
