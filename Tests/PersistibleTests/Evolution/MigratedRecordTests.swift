import Foundation
import Persistible
import Testing

/// Records that this version reads only through a migration, written by a newer version that kept the old format
/// and added a key: the next write stores them in the current format, drops the keys the old type knows, and keeps
/// the key nobody here knows, or throws and writes nothing.
@Suite struct MigratedRecordTests {
    /// Version 1, frozen: `name` and a nested `details.note`.
    struct V1: Codable, Hashable {
        struct Details: Codable, Hashable { var note: String }
        var id: String
        var name: String
        var details: Details
    }

    /// Version 1 as a frozen copy that only decodes.
    struct V1Decodable: Decodable {
        struct Details: Decodable { var note: String }
        var id: String
        var name: String
        var details: Details
    }

    /// Version 2: `name` renamed to `title`, `details.note` moved up to `note`.
    struct V2: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var note: String
        static var fileName: String { "migrated-tasks" }
        static let fromV1 = ArchiveMigration<V2>.from(V1.self) { V2(id: $0.id, title: $0.name, note: $0.details.note) }
        static var archiveMigrations: [ArchiveMigration<V2>] { [fromV1] }
    }

    /// Version 3, reading version 1 through version 2's migration, chained.
    struct V3: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var note: String
        var tags: [String]
        static var fileName: String { "migrated-tasks" }
        static var archiveMigrations: [ArchiveMigration<V3>] {
            [V2.fromV1.then { V3(id: $0.id, title: $0.title, note: $0.note, tags: []) }]
        }
    }

    /// Version 2 with a migration from a frozen copy that only decodes.
    struct V2FromDecodable: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var note: String
        static var fileName: String { "migrated-tasks" }
        static var archiveMigrations: [ArchiveMigration<V2FromDecodable>] {
            [.from(V1Decodable.self) { V2FromDecodable(id: $0.id, title: $0.name, note: $0.details.note) }]
        }
    }

    /// A record in version 1's format with `rank`, a key a later version added, and one in version 2's format.
    static let mixed = """
        [
          {
            "details" : {
              "note" : "Dairy"
            },
            "id" : "a",
            "name" : "Buy milk",
            "rank" : 3
          },
          {
            "id" : "b",
            "note" : "",
            "title" : "Call Amy"
          }
        ]
        """

    /// The first record of ``mixed`` in version 2's format, with `rank` kept.
    static let migratedA = """
          {
            "id" : "a",
            "note" : "Dairy",
            "rank" : 3,
            "title" : "Buy milk"
          }
        """

    static let untouchedB = """
          {
            "id" : "b",
            "note" : "",
            "title" : "Call Amy"
          }
        """

    private func installText<T: Persistible>(_ text: String, as type: T.Type) throws -> Data {
        try FileManager.default.createDirectory(at: T.archiveDirectory, withIntermediateDirectories: true)
        let bytes = Data(text.utf8)
        try bytes.write(to: T.archiveUrl)
        return bytes
    }

    private func text<T: Persistible>(of type: T.Type) throws -> String {
        String(decoding: try bytes(of: type), as: UTF8.self)
    }

    @Test func anAppendKeepsTheKeyAMigratedRecordHoldsBeyondItsOldType() throws {
        try inTemporaryDirectory { directory in
            _ = try installText(Self.mixed, as: V2.self)
            try V2(id: "c", title: "Read", note: "").saveToFile()
            let appended = "  {\n    \"id\" : \"c\",\n    \"note\" : \"\",\n    \"title\" : \"Read\"\n  }"
            #expect(try text(of: V2.self) == "[\n\(Self.migratedA),\n\(Self.untouchedB),\n\(appended)\n]" + "\n")
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func editingAMigratedRecordKeepsItsUnknownKeyAndDropsItsOldKeys() throws {
        try inTemporaryDirectory { _ in
            _ = try installText(Self.mixed, as: V2.self)
            try V2(id: "a", title: "Buy oat milk", note: "Dairy").saveToFile()
            let edited = Self.migratedA.replacingOccurrences(of: "Buy milk", with: "Buy oat milk")
            #expect(try text(of: V2.self) == "[\n\(edited),\n\(Self.untouchedB)\n]" + "\n")
            #expect(try V2.loadListFromFile().map(\.title) == ["Buy oat milk", "Call Amy"])
        }
    }

    @Test func editingAnotherRecordKeepsTheUnknownKeyOfTheMigratedOne() throws {
        try inTemporaryDirectory { _ in
            _ = try installText(Self.mixed, as: V2.self)
            try V2(id: "b", title: "Call Amy back", note: "").saveToFile()
            let edited = Self.untouchedB.replacingOccurrences(of: "Call Amy", with: "Call Amy back")
            #expect(try text(of: V2.self) == "[\n\(Self.migratedA),\n\(edited)\n]" + "\n")
        }
    }

    @Test func aStoreUpdateKeepsTheUnknownKeyOfAMigratedRecord() throws {
        try inTemporaryDirectory { _ in
            _ = try installText(Self.mixed, as: V2.self)
            try FileStore<V2>().update(V2(id: "a", title: "Buy milk", note: "Oat"))
            let edited = Self.migratedA.replacingOccurrences(of: "Dairy", with: "Oat")
            #expect(try text(of: V2.self) == "[\n\(edited),\n\(Self.untouchedB)\n]" + "\n")
        }
    }

    @Test func updatingAMigratedSingleValueKeepsItsUnknownKey() throws {
        try inTemporaryDirectory { directory in
            _ = try installText(
                "{\n  \"details\" : {\n    \"note\" : \"Dairy\"\n  },\n  \"id\" : \"a\",\n  \"name\" : \"Buy milk\",\n"
                    + "  \"rank\" : 3\n}",
                as: V2.self
            )
            try V2.update(default: V2(id: "a", title: "", note: "")) { $0.note = "Oat" }
            #expect(try text(of: V2.self)
                == "{\n  \"id\" : \"a\",\n  \"note\" : \"Oat\",\n  \"rank\" : 3,\n  \"title\" : \"Buy milk\"\n}" + "\n")
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aChainOfMigrationsKeepsTheUnknownKeyToo() throws {
        try inTemporaryDirectory { _ in
            // Both records in version 1's format, each with a rank.
            let second = "{ \"details\" : { \"note\" : \"\" }, \"id\" : \"b\", \"name\" : \"Call Amy\", \"rank\" : 1 }"
            _ = try installText(Self.mixed.replacingOccurrences(of: Self.untouchedB, with: "  " + second), as: V3.self)
            try FileStore<V3>().insert(V3(id: "c", title: "Read", note: "", tags: ["home"]))
            let stored = try #require(try JSONSerialization.jsonObject(with: bytes(of: V3.self)) as? [[String: Any]])
            #expect(stored.map { $0["rank"] as? Int } == [3, 1, nil])
            #expect(stored.allSatisfy { $0["name"] == nil && $0["details"] == nil })
            #expect(try V3.loadListFromFile().map(\.title) == ["Buy milk", "Call Amy", "Read"])
        }
    }

    @Test func anUnknownKeyWithNoPlaceInTheNewFormatThrowsAndWritesNothing() throws {
        try inTemporaryDirectory { directory in
            // `details` is version 1's, and gone from version 2: a key a later version added inside it has no place.
            let old = try installText(
                Self.mixed.replacingOccurrences(of: "\"note\" : \"Dairy\"", with: "\"color\" : \"white\",\n"
                    + "      \"note\" : \"Dairy\""),
                as: V2.self
            )
            let writes: [(String, () throws -> Void)] = [
                ("append", { _ = try V2(id: "c", title: "Read", note: "").saveToFile() }),
                ("edit", { _ = try V2(id: "a", title: "Buy oat milk", note: "Dairy").saveToFile() }),
                ("edit another", { try FileStore<V2>().update(V2(id: "b", title: "Call Amy back", note: "")) }),
            ]
            for (name, write) in writes {
                let error = persistenceError { try write() }
                #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0].details.color", "[0].rank"]), "\(name)")
                #expect(try bytes(of: V2.self) == old, "\(name)")
                #expect(try directory.temporaries().isEmpty, "\(name)")
            }
        }
    }

    @Test func aMigrationFromATypeThatOnlyDecodesKeepsTheTopLevelKeyItDidNotRead() throws {
        try inTemporaryDirectory { _ in
            _ = try installText(Self.mixed, as: V2FromDecodable.self)
            try V2FromDecodable(id: "c", title: "Read", note: "").saveToFile()
            let stored = try #require(
                try JSONSerialization.jsonObject(with: bytes(of: V2FromDecodable.self)) as? [[String: Any]]
            )
            // `rank` is kept; `name` and `details`, which the old type read, are the migration's to drop.
            #expect(stored.map { $0.keys.sorted() }
                == [["id", "note", "rank", "title"], ["id", "note", "title"], ["id", "note", "title"]])
            #expect(stored.first?["rank"] as? Int == 3)
        }
    }
}
