import Foundation
import Persistible
import Testing

/// Three numbers, stored as an array of three: a type whose own encoding is an array.
struct Triple: Codable, Hashable, Persistible {
    var a: Int, b: Int, c: Int

    init(_ a: Int, _ b: Int, _ c: Int) {
        (self.a, self.b, self.c) = (a, b, c)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        (a, b, c) = (try container.decode(Int.self), try container.decode(Int.self), try container.decode(Int.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(a)
        try container.encode(b)
        try container.encode(c)
    }
}

/// Three numbers stored as an array, read also from an earlier form that named two of them: a migration makes its
/// files be read record by record, through the path that fills defaults and tries older types.
struct MigratingTriple: Codable, Hashable, Persistible {
    struct Named: Codable {
        var a: Int, b: Int
    }

    var values: [Int]

    init(_ values: [Int]) {
        self.values = values
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        values = [try container.decode(Int.self), try container.decode(Int.self), try container.decode(Int.self)]
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(contentsOf: values)
    }

    static var archiveMigrations: [ArchiveMigration<MigratingTriple>] {
        [.from(Named.self) { MigratingTriple([$0.a, $0.b, 0]) }]
    }
}

/// A record that is itself an array of numbers.
struct Scores: Codable, Hashable, Persistible {
    var values: [Int]

    init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([Int].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}

/// A file that is not JSON is reported where its first error is, with what was expected there.
@Suite struct SyntaxErrorTests {
    /// Damaged files, where their first error is (line, column in characters, byte offset from 0), what the
    /// error says about it, and whether salvage loses bytes to it: not when only a comma or the closing `]` is
    /// missing.
    static let damaged: [(String, line: Int, column: Int, offset: Int, says: String, salvageLoses: Bool)] = [
        ("[1,2 3]", 1, 6, 5, "expected ',' or ']' after an array element, found '3'", true),
        ("[\n  {\n    \"name\" : \"Sam", 3, 18, 23, "expected '\"' to end the string, found the end of the file", true),
        ("{\"name\" \"Sam\"}", 1, 9, 8, "expected ':' after a key, found '\"'", true),
        ("[\"éé\", x]", 1, 8, 9, "expected a value, found 'x'", true),
        ("[\n  {\"age\": 3\n  }\n  {}\n]", 4, 3, 20, "expected ',' or ']' after an array element, found '{'", false),
        ("[{\"age\": 3} x", 1, 13, 12, "expected ',' or ']' after an array element, found 'x'", true),
        ("[{\"age\": 3}", 1, 12, 11, "expected ',' or ']' after an array element, found the end of the file", false),
        ("[{\"age\": -}]", 1, 11, 10, "expected a digit, found '}'", true),
        ("[{\"age\": tru}]", 1, 13, 12, "expected 'true', found '}'", true),
        ("[{\"a\\q\": 1}]", 1, 6, 5, "expected an escape sequence", true),
        ("[\"a\tb\"]", 1, 4, 3, "found a tab", true),
        ("{} {}", 1, 4, 3, "expected the end of the file after the value, found '{'", true),
    ]

    @Test(arguments: damaged.indices)
    func everyReadNamesTheLineColumnAndByteOfTheFirstErrorAndWhatWasExpected(_ index: Int) throws {
        let (contents, line, column, offset, says, salvageLoses) = Self.damaged[index]
        let place = "line \(line), column \(column) (byte \(offset))"
        try inTemporaryDirectory { directory in
            try Data(contents.utf8).write(to: Person.archiveUrl)
            let store = FileStore<Movie>(url: Person.archiveUrl)
            for (operation, body) in [
                ("loadListFromFile", { _ = try Person.loadListFromFile() }),
                ("loadFromFile", { _ = try Person.loadFromFile() }),
                ("saveToFile", { try sam.saveToFile() }),
                ("store", { _ = try store.all() }),
            ] as [(String, () throws -> Void)] {
                let error = try #require(persistenceError(body), "\(operation)")
                guard case .unreadable(_, let detail) = error.reason else {
                    Issue.record("\(operation): \(error)")
                    continue
                }
                #expect(error.versionMismatch == nil, "\(operation)")
                #expect(detail.contains(place) && detail.contains(says), "\(operation): \(detail)")
                #expect(error.description.contains(place) && error.description.contains(says), "\(error)")
            }
            let salvaged = try Person.salvageFile()
            let messages = salvaged.unreadable.map(\.message).joined(separator: " | ")
            #expect((messages.contains(place) && messages.contains(says)) == salvageLoses, "salvage: \(messages)")
            #expect(try bytes(of: Person.self) == Data(contents.utf8))
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aTypeEncodedAsAnArrayIsToldWhatItLacksNotThatTheFileIsNoArrayOfRecords() throws {
        try inTemporaryDirectory { _ in
            try Data("[1,2]".utf8).write(to: Triple.archiveUrl)
            for body in [{ _ = try Triple.loadFromFile() }, { _ = try Triple.loadListFromFile() }] {
                let error = try #require(persistenceError(body))
                guard case .unreadable(let codingPath, _) = error.reason else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(codingPath == "[2]", "\(error)")
                #expect(error.versionMismatch?.record == nil, "\(error)")
                #expect(!error.description.contains("record 0"), "\(error)")
                #expect(!error.description.contains("Array"), "\(error)")
            }
            try Data("[1,\"two\"]".utf8).write(to: Scores.archiveUrl)
            let error = try #require(persistenceError { _ = try Scores.loadFromFile() })
            #expect(error.reason == .unreadable(codingPath: "[1]", detail: "Expected to decode Int but found a string instead."), "\(error)")
            #expect(error.versionMismatch?.record == nil, "\(error)")
        }
    }

    @Test func aTypeEncodedAsAnArrayWithMigrationsIsToldWhatItLacksToo() throws {
        try inTemporaryDirectory { _ in
            try Data("[1,2]".utf8).write(to: MigratingTriple.archiveUrl)
            let error = try #require(persistenceError { _ = try MigratingTriple.loadFromFile() })
            guard case .unreadable(let codingPath, _) = error.reason else {
                Issue.record("\(error)")
                return
            }
            #expect(codingPath == "[2]", "\(error)")
            #expect(error.versionMismatch?.record == nil, "\(error)")
            #expect(!error.description.contains("record 0"), "\(error)")
            try Data("[1,2,3]".utf8).write(to: MigratingTriple.archiveUrl)
            MigratingTriple.clearArchiveCache()
            #expect(try MigratingTriple.loadFromFile() == MigratingTriple([1, 2, 3]))
        }
    }

    @Test func aFileOfRecordsIsStillToldWhichRecordDoesNotMatch() throws {
        try inTemporaryDirectory { _ in
            // An array of numbers where records are objects: record 0 is what does not match.
            try Data("[1, 2, 3]".utf8).write(to: Person.archiveUrl)
            let error = try #require(persistenceError { _ = try Person.loadListFromFile() })
            #expect(error.versionMismatch?.record == 0, "\(error)")
            // An array of arrays where one lacks a number: the record that does.
            try Data("[[1,2,3],[4,5]]".utf8).write(to: Triple.archiveUrl)
            let triples = try #require(persistenceError { _ = try Triple.loadListFromFile() })
            #expect(triples.versionMismatch?.record == 1, "\(triples)")
            guard case .unreadable(let codingPath, _) = triples.reason else {
                Issue.record("\(triples)")
                return
            }
            #expect(codingPath == "[1][2]", "\(triples)")
        }
    }
}

/// Any JSON value, read by trying one type after another, as an enum of several kinds often does: the error it
/// throws for a file that is not JSON says nothing of where the file goes wrong.
enum AnyJSON: Codable, Hashable, Persistible {
    case number(Int), text(String), list([AnyJSON]), null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let list = try? container.decode([AnyJSON].self) {
            self = .list(list)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "No kind of value matched.")
        }
    }
}

/// Files that are not JSON, or not JSON a decoder reads, with where and what each error is.
@Suite struct SyntaxErrorPlaceTests {
    static let misplaced: [(bytes: [UInt8], place: String, says: String)] = [
        (Array("123".utf8) + [0], "line 1, column 4 (byte 3)", "found the control character U+0000"),
        (Array("[1,".utf8) + [0, 0x5D], "line 1, column 4 (byte 3)", "expected a value, found the control character U+0000"),
        (Array("[\"".utf8) + [0x5C, 0, 0x22, 0x5D], "line 1, column 4 (byte 3)", "expected an escape sequence"),
        (Array("[\"".utf8) + [0, 0x22, 0x5D], "line 1, column 3 (byte 2)", "found the control character U+0000"),
        (Array("[\"a".utf8) + [1, 0x22, 0x5D], "line 1, column 4 (byte 3)", "found the control character U+0001"),
        (Array(repeating: 0, count: 64), "line 1, column 1 (byte 0)", "expected a value, found the control character U+0000"),
    ]

    @Test(arguments: misplaced.indices)
    func aNulOrControlCharacterIsPlacedWhateverTheTypeTries(_ index: Int) throws {
        let (contents, place, says) = Self.misplaced[index]
        try inTemporaryDirectory { _ in
            try Data(contents).write(to: AnyJSON.archiveUrl)
            try Data(contents).write(to: Person.archiveUrl)
            for body in [{ _ = try AnyJSON.loadListFromFile() }, { _ = try Person.loadListFromFile() }] {
                let error = try #require(persistenceError(body))
                guard case .unreadable(_, let detail) = error.reason else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(detail.contains(place) && detail.contains(says), "\(detail)")
            }
            #expect(try bytes(of: AnyJSON.self) == Data(contents))
        }
    }

    @Test func aFileOfSpacesIsToldToHoldNoValueRatherThanToBeEmpty() throws {
        try inTemporaryDirectory { _ in
            try Data("  \n\t ".utf8).write(to: Person.archiveUrl)
            let error = try #require(persistenceError { _ = try Person.loadListFromFile() })
            #expect(error.reason == .unreadable(codingPath: "", detail: "The file holds only whitespace, no value."))
            try Data().write(to: Person.archiveUrl)
            let empty = try #require(persistenceError { _ = try Person.loadListFromFile() })
            #expect(empty.reason == .unreadable(codingPath: "", detail: "The file is empty."))
        }
    }

    /// `levels` arrays, one in the other.
    static func nested(_ levels: Int) -> Data {
        Data((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
    }

    @Test func aFileNestedDeeperThanADecoderReadsIsToldSoWithTheLimit() throws {
        try inTemporaryDirectory { _ in
            try Self.nested(512).write(to: AnyJSON.archiveUrl)
            #expect(try AnyJSON.loadListFromFile().count == 1)
            try Self.nested(513).write(to: AnyJSON.archiveUrl)
            AnyJSON.clearArchiveCache()
            let error = try #require(persistenceError { _ = try AnyJSON.loadListFromFile() })
            #expect(error.versionMismatch == nil, "\(error)")
            guard case .unreadable(_, let detail) = error.reason else {
                Issue.record("\(error)")
                return
            }
            #expect(detail.contains("line 1, column 513 (byte 512)") && detail.contains("deeper"), "\(detail)")
            #expect(detail.contains("512 levels"), "\(detail)")
            #expect(!error.description.contains("another version"), "\(error)")
        }
    }

    @Test func salvageReturnsNoRecordNestedDeeperThanALoadReads() throws {
        try inTemporaryDirectory { _ in
            // A record of 512 levels in the file's array, beside one a load reads.
            let file = Data("[1,".utf8) + Self.nested(512) + Data("]".utf8)
            try file.write(to: AnyJSON.archiveUrl)
            #expect(persistenceError { _ = try AnyJSON.loadListFromFile() } != nil)
            let salvaged = try AnyJSON.salvageFile()
            #expect(salvaged.values == [.number(1)])
            #expect(salvaged.unreadable.count == 1)
            #expect(salvaged.unreadable.first?.message.contains("512 levels") == true, "\(salvaged.unreadable)")
            #expect(salvaged.unreadable.first?.bytes == Self.nested(512))
            // One level less is a record every load reads.
            try (Data("[1,".utf8) + Self.nested(511) + Data("]".utf8)).write(to: AnyJSON.archiveUrl)
            AnyJSON.clearArchiveCache()
            #expect(try AnyJSON.salvageFile().values.count == 2)
            #expect(try AnyJSON.loadListFromFile().count == 2)
        }
    }
}
