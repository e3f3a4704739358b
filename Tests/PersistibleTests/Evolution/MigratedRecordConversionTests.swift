import Foundation
import Persistible
import Testing

/// Records read through a migration and then compared as any other record: their current-format form, with what
/// their older type did not know, is what a write keeps, in a pretty-printed file, in a file that starts with a
/// byte order mark, and through a `DomainStore` whose conversion reads a field as another value.
@Suite struct MigratedRecordConversionTests {
    /// Version 1, frozen: tags whose `color` a later version added.
    struct V1: Codable, Hashable {
        struct Tag: Codable, Hashable { var name: String }
        var id: String
        var name: String
        var tags: [Tag]
    }

    /// Version 2: `name` renamed to `title`; the tags unchanged.
    struct V2: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var tags: [V1.Tag]
        static var fileName: String { "tagged-tasks" }
        static var archiveMigrations: [ArchiveMigration<V2>] {
            [.from(V1.self) { V2(id: $0.id, title: $0.name, tags: $0.tags) }]
        }
    }

    /// A record in version 1's format whose tag holds `color`, which neither version knows.
    static let tagged = """
        [
          {
            "id" : "a",
            "name" : "Buy milk",
            "tags" : [
              {
                "color" : "red",
                "name" : "home"
              }
            ]
          }
        ]
        """

    @Test func anAppendToAPrettyPrintedFileKeepsTheArrayAMigratedRecordReadShort() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: V2.archiveDirectory, withIntermediateDirectories: true)
            try Data(Self.tagged.utf8).write(to: V2.archiveUrl)
            try V2(id: "b", title: "Read", tags: []).saveToFile()
            let stored = try #require(try JSONSerialization.jsonObject(with: bytes(of: V2.self)) as? [[String: Any]])
            let tags = try #require(stored.first?["tags"] as? [[String: String]])
            #expect(tags == [["color": "red", "name": "home"]])
            #expect(stored.map { $0["title"] as? String } == ["Buy milk", "Read"])
            #expect(stored.first?["name"] == nil)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    /// Version 1 without tags, for a file the package cannot cut into records.
    struct PlainV1: Codable, Hashable {
        var id: String
        var name: String
    }

    struct PlainV2: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        static var fileName: String { "plain-tasks" }
        static var archiveMigrations: [ArchiveMigration<PlainV2>] {
            [.from(PlainV1.self) { PlainV2(id: $0.id, title: $0.name) }]
        }
    }

    @Test func aFileWithAByteOrderMarkHoldingAMigratedRecordIsWrittenInTheCurrentFormat() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: PlainV2.archiveDirectory, withIntermediateDirectories: true)
            let text = #"[{"id": "a", "name": "Buy milk"}, {"id": "b", "title": "Call Amy"}]"#
            try (Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)).write(to: PlainV2.archiveUrl)
            try PlainV2(id: "c", title: "Read").saveToFile()
            let stored = try #require(
                try JSONSerialization.jsonObject(with: bytes(of: PlainV2.self)) as? [[String: String]]
            )
            #expect(stored == [
                ["id": "a", "title": "Buy milk"], ["id": "b", "title": "Call Amy"], ["id": "c", "title": "Read"],
            ])
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aFileWithAByteOrderMarkKeepsTheKeyAMigratedRecordHoldsBeyondItsOldType() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: PlainV2.archiveDirectory, withIntermediateDirectories: true)
            let old = Data([0xEF, 0xBB, 0xBF]) + Data(#"[{"id": "a", "name": "Buy milk", "rank": 3}]"#.utf8)
            try old.write(to: PlainV2.archiveUrl)
            try PlainV2(id: "c", title: "Read").saveToFile()
            let stored = try #require(try JSONSerialization.jsonObject(with: bytes(of: PlainV2.self)) as? [[String: Any]])
            #expect(stored.map { $0["rank"] as? Int } == [3, nil])
            #expect(stored.map { $0["title"] as? String } == ["Buy milk", "Read"])
            #expect(stored.first?["name"] == nil)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    /// A user whose stored form gained `avatar` in version 2; version 1's records are read through a migration.
    struct User: Hashable, Identifiable, StoredRepresentable {
        enum Role: String { case unknown = "Unknown", admin = "Admin", owner = "Owner" }

        struct StoredV1: Codable, Hashable {
            var username: String
            var role: String
        }

        struct Stored: Codable, Hashable, Identifiable, Persistible {
            var id: String { username }
            var username: String
            var role: String
            var avatar: String
            static var fileName: String { "migrated-users" }
            static var archiveMigrations: [ArchiveMigration<Stored>] {
                [.from(StoredV1.self) { Stored(username: $0.username, role: $0.role, avatar: "") }]
            }
        }

        var username: String
        var role: Role
        var avatar: String
        var id: String { username }

        var stored: Stored { Stored(username: username, role: role.rawValue, avatar: avatar) }

        init(username: String, role: Role, avatar: String) {
            self.username = username
            self.role = role
            self.avatar = avatar
        }

        init?(stored: Stored) {
            self.init(username: stored.username, role: Role(rawValue: stored.role) ?? .unknown, avatar: stored.avatar)
        }
    }

    @Test func aDomainStoreEditOfAMigratedRecordKeepsTheRoleItsConversionReadsAsUnknown() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(
                at: User.Stored.archiveDirectory, withIntermediateDirectories: true
            )
            try Data(#"[{"role": "Superuser", "username": "bob"}]"#.utf8).write(to: User.Stored.archiveUrl)
            let users = DomainStore<User>()
            try users.update(User(username: "bob", role: .unknown, avatar: "c.png"))
            #expect(try users.storage.all() == [User.Stored(username: "bob", role: "Superuser", avatar: "c.png")])
            try users.update(User(username: "bob", role: .owner, avatar: "c.png"))
            #expect(try users.storage.all() == [User.Stored(username: "bob", role: "Owner", avatar: "c.png")])
        }
    }
}
