import Foundation
import Persistible
import Testing

/// A default fills only a key that a record holds under no spelling the type reads: a migration that reads the
/// record comes first, and a key the decoder converts, or spells in another Unicode normalization form, is the key.
@Suite struct DefaultPrecedenceTests {
    /// The README's "Model evolution" example, as written there.
    enum Readme {
        struct TaskV1: Codable { var id: String; var name: String }

        struct Task: Codable, Hashable, Identifiable, Persistible {
            var id: String
            var title: String                   // was `name` in version 1
            var priority: Int = 0               // new in version 2

            static var archiveDefaults: Task? { Task(id: "", title: "") }     // fills missing keys, at every depth
            static var archiveMigrations: [ArchiveMigration<Task>] {
                [.from(TaskV1.self) { old in Task(id: old.id, title: old.name) }]  // tried per record, in order
            }
        }
    }

    /// The issue's type: a decoder that converts from snake case, an encoder that does not.
    struct SnakeAccount: Codable, Hashable, Persistible {
        var userName: String
        var loginCount: Int

        static var archiveDecoder: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        static var archiveDefaults: SnakeAccount? { SnakeAccount(userName: "", loginCount: 0) }
    }

    /// A decoder whose custom strategy reads keys in any case, at every depth.
    struct Shouted: Codable, Hashable, Persistible {
        struct Profile: Codable, Hashable { var city: String; var zip = "" }
        var name: String
        var profile: Profile

        static var archiveDecoder: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .custom { path in
                Key(stringValue: path.last!.stringValue.lowercased())
            }
            return decoder
        }
        static var archiveDefaults: Shouted? { Shouted(name: "", profile: Profile(city: "")) }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    /// A key with a precomposed letter, which a file may hold decomposed.
    struct Cafe: Codable, Hashable, Persistible {
        var café: String
        var open = false
        static var archiveDefaults: Cafe? { Cafe(café: "") }
    }

    private func objects<T: Persistible>(of type: T.Type) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: bytes(of: type)) as? [[String: Any]])
    }

    @Test func theReadmeExampleMigratesAnOldRecordRatherThanFillingItsDefault() throws {
        try inTemporaryDirectory { _ in
            typealias Task = Readme.Task
            try install(
                json: #"[{"id":"a","name":"Buy milk"},{"id":"b","title":"Call Amy"},{"id":"c","title":"Read","priority":2}]"#,
                as: Task.self
            )
            let before = try bytes(of: Task.self)
            let loaded = try Task.loadListFromFile()
            #expect(loaded.map(\.title) == ["Buy milk", "Call Amy", "Read"])
            #expect(loaded.map(\.priority) == [0, 0, 2])
            #expect(try bytes(of: Task.self) == before)

            try Task(id: "d", title: "Water plants").saveToFile()
            let written = try objects(of: Task.self)
            #expect(written.map { $0["title"] as? String } == ["Buy milk", "Call Amy", "Read", "Water plants"])
            #expect(written[0]["name"] == nil)
        }
    }

    @Test func aSnakeCaseRecordKeepsItsValuesAndIsNotWrittenBesideADefault() throws {
        try inTemporaryDirectory { _ in
            try install(json: #"[{"user_name":"ann","login_count":3}]"#, as: SnakeAccount.self)
            #expect(try SnakeAccount.loadListFromFile() == [SnakeAccount(userName: "ann", loginCount: 3)])

            try SnakeAccount(userName: "bob", loginCount: 1).saveToFile()
            let text = String(decoding: try bytes(of: SnakeAccount.self), as: UTF8.self)
            #expect(text.hasPrefix(#"[{"user_name":"ann","login_count":3}"#), "\(text)")
            #expect(!text.contains(#""userName" : """#), "\(text)")
            #expect(try SnakeAccount.loadListFromFile().map(\.userName) == ["ann", "bob"])
        }
    }

    @Test func aChangedSnakeCaseRecordIsWrittenOnceInTheEncodersSpelling() throws {
        try inTemporaryDirectory { _ in
            // The stored `user_name` is the key the type reads as `userName`: the new encoding replaces it rather
            // than being written beside it, which would leave two spellings of one key.
            try install(json: #"{"user_name":"ann","login_count":3,"team":"blue"}"#, as: SnakeAccount.self)
            try SnakeAccount.update(default: SnakeAccount(userName: "", loginCount: 0)) { $0.loginCount += 1 }
            let object = try #require(
                try JSONSerialization.jsonObject(with: bytes(of: SnakeAccount.self)) as? [String: Any]
            )
            #expect(object.keys.sorted() == ["loginCount", "team", "userName"])
            #expect(try SnakeAccount.loadFromFile() == SnakeAccount(userName: "ann", loginCount: 4))
        }
    }

    @Test func aSnakeCaseRecordThatLacksAKeyIsWrittenOnceInTheEncodersSpelling() throws {
        try inTemporaryDirectory { _ in
            try install(json: #"[{"user_name":"ann"}]"#, as: SnakeAccount.self)
            #expect(try SnakeAccount.loadListFromFile() == [SnakeAccount(userName: "ann", loginCount: 0)])
            // The record needed a default, so the next save writes it in the current format: once.
            try SnakeAccount(userName: "bob", loginCount: 1).saveToFile()
            #expect(try objects(of: SnakeAccount.self).map { $0.keys.sorted() } == [
                ["loginCount", "userName"], ["loginCount", "userName"],
            ])
            #expect(try SnakeAccount.loadListFromFile().map(\.userName) == ["ann", "bob"])
        }
    }

    @Test func aCustomKeyStrategyIsHonouredAtEveryDepth() throws {
        try inTemporaryDirectory { _ in
            try install(json: #"[{"NAME":"ann","PROFILE":{"CITY":"Accra"}}]"#, as: Shouted.self)
            let before = try bytes(of: Shouted.self)
            #expect(try Shouted.loadListFromFile() == [Shouted(name: "ann", profile: .init(city: "Accra", zip: ""))])
            #expect(try bytes(of: Shouted.self) == before)
        }
    }

    @Test(arguments: [#"cafe\u0301"#, "cafe\u{301}"])
    func aKeyInAnotherNormalizationFormIsTheKey(_ spelling: String) throws {
        try inTemporaryDirectory { _ in
            try install(json: #"[{"\#(spelling)":"Lotus","open":true}]"#, as: Cafe.self)
            let before = try bytes(of: Cafe.self)
            #expect(try Cafe.loadListFromFile() == [Cafe(café: "Lotus", open: true)])
            try Cafe(café: "Ikoyi").saveToFile()
            #expect(try bytes(of: Cafe.self).starts(with: before.dropLast()))
        }
    }
}
