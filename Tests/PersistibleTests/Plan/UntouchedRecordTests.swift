import Foundation
import Persistible
import Testing

/// Records a write did not change keep their stored bytes, even where the file holds one identity several times,
/// and values the type cannot read back whole are never written over silently.
@Suite struct UntouchedRecordTests {
    /// A file of tasks holding the identity `1` twice, each copy with a key the type does not know, and `b`.
    static let repeated = """
        [
          {
            "id" : "1",
            "k" : 1,
            "title" : "First"
          },
          {
            "id" : "1",
            "k2" : 2,
            "title" : "Second"
          },
          {
            "id" : "b",
            "title" : "Other"
          }
        ]
        """

    /// `repeated` without its last record: what a write that removes `b` leaves.
    static let repeatedWithoutB = """
        [
          {
            "id" : "1",
            "k" : 1,
            "title" : "First"
          },
          {
            "id" : "1",
            "k2" : 2,
            "title" : "Second"
          }
        ]
        """

    private func installRepeated() throws {
        try FileManager.default.createDirectory(at: AddedField.V1.archiveDirectory, withIntermediateDirectories: true)
        try Data(Self.repeated.utf8).write(to: AddedField.V1.archiveUrl)
    }

    @Test func removingAnotherRecordKeepsBothCopiesOfARepeatedIdentityByteForByte() throws {
        try inTemporaryDirectory { _ in
            try installRepeated()
            #expect(try AddedField.V1(id: "b", title: "Other").removeFromFile())
            #expect(String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self) == Self.repeatedWithoutB + "\n")
        }
    }

    @Test func editingAnotherRecordKeepsBothCopiesOfARepeatedIdentityByteForByte() throws {
        try inTemporaryDirectory { _ in
            try installRepeated()
            _ = try AddedField.V1(id: "b", title: "Changed").saveToFile()
            let text = String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
            #expect(text == Self.repeated.replacingOccurrences(of: "\"Other\"", with: "\"Changed\"") + "\n")
        }
    }

    @Test func overwritingKeepsTheLastCopyOfARepeatedIdentityByteForByteWhereTheFirstStood() throws {
        try inTemporaryDirectory { _ in
            try installRepeated()
            let read = try AddedField.V1.loadListFromFile()
            #expect(read.map(\.title) == ["First", "Second", "Other"])
            // An overwrite keeps the last of several values with one identity where the first stood, as documented,
            // with the stored bytes of the record it holds: the second copy's, not the first's keys around it.
            try read.overwriteFile()
            let second = try #require(Self.repeated.range(of: "  {\n    \"id\" : \"1\",\n    \"k2\""))
            let secondRecord = String(Self.repeated[second.lowerBound...].prefix(through: try #require(
                Self.repeated[second.lowerBound...].firstIndex(of: "}"))))
            let text = String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
            #expect(text.hasPrefix("[\n" + secondRecord + ",\n  {\n    \"id\" : \"b\""), "\(text)")
            #expect(try AddedField.V1.loadListFromFile().map(\.title) == ["Second", "Other"])
        }
    }

    @Test func aStoreReplacingAllKeepsTheLastCopyOfARepeatedIdentityByteForByteWhereTheFirstStood() throws {
        try inTemporaryDirectory { _ in
            try installRepeated()
            let store = FileStore<AddedField.V1>()
            let read = try store.all()
            // One identity rule for every write: as an overwrite does, the store keeps the later value where the
            // first stood, with that copy's stored bytes rather than the first copy's keys around a new encoding.
            try store.replaceAll(with: read)
            let second = try #require(Self.repeated.range(of: "  {\n    \"id\" : \"1\",\n    \"k2\""))
            let secondRecord = String(Self.repeated[second.lowerBound...].prefix(through: try #require(
                Self.repeated[second.lowerBound...].firstIndex(of: "}"))))
            let text = String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
            #expect(text.hasPrefix("[\n" + secondRecord + ",\n  {\n    \"id\" : \"b\""), "\(text)")
            #expect(try store.all().map(\.title) == ["Second", "Other"])
        }
    }

    @Test func aStoreDeletingAnotherRecordKeepsBothCopiesOfARepeatedIdentityByteForByte() throws {
        try inTemporaryDirectory { _ in
            try installRepeated()
            try FileStore<AddedField.V1>().delete(AddedField.V1(id: "b", title: "Other"))
            #expect(String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self) == Self.repeatedWithoutB + "\n")
        }
    }

    @Test func aDomainStoreInsertingAnotherRecordKeepsBothCopiesOfARepeatedIdentityByteForByte() throws {
        try inTemporaryDirectory { directory in
            let stored = """
                [
                  {
                    "k" : 1,
                    "role" : "Admin",
                    "username" : "amy"
                  },
                  {
                    "k2" : 2,
                    "role" : "Owner",
                    "username" : "amy"
                  },
                  {
                    "role" : "User",
                    "username" : "carl"
                  }
                ]
                """
            let url = directory.file("users.json")
            try Data(stored.utf8).write(to: url)
            let users = DomainStore<User>(url: url)
            try users.insert(User(username: "dave", role: .user))
            let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            #expect(text.hasPrefix(String(stored.dropLast(2)) + ",\n  {"))
            #expect(try FileStore<User.Stored>(url: url).all().map(\.role) == ["Admin", "Owner", "User", "User"])
        }
    }

    /// A role this version does not know.
    enum Role: String, Codable, Hashable, Sendable {
        case admin, owner
    }

    /// A type whose roles decode leniently: a role it does not know is skipped, so what it reads is shorter than
    /// what is stored.
    struct Member: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var roles: [Role]
        var title: String
        static var fileName: String { "members" }

        init(id: String, roles: [Role], title: String) {
            self.id = id
            self.roles = roles
            self.title = title
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            roles = try container.decode([String].self, forKey: .roles).compactMap(Role.init(rawValue:))
        }
    }

    static let members = """
        [
          {
            "id" : "a",
            "roles" : [
              "admin",
              "superuser"
            ],
            "title" : "Amy"
          },
          {
            "id" : "b",
            "roles" : [
              "owner"
            ],
            "title" : "Bob"
          }
        ]
        """

    private func installMembers() throws -> Data {
        try FileManager.default.createDirectory(at: Member.archiveDirectory, withIntermediateDirectories: true)
        let bytes = Data(Self.members.utf8)
        try bytes.write(to: Member.archiveUrl)
        return bytes
    }

    @Test func changingAnArrayThatLostAnElementWhenReadThrowsAndWritesNothing() throws {
        try inTemporaryDirectory { directory in
            let stored = try installMembers()
            #expect(try Member.loadListFromFile()[0].roles == [.admin])
            let error = persistenceError {
                _ = try Member(id: "a", roles: [.admin, .owner], title: "Amy").saveToFile()
            }
            #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0].roles[]"]))
            #expect(try bytes(of: Member.self) == stored)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func changingAnotherFieldKeepsAnArrayThatLostAnElementWhenReadAsStored() throws {
        try inTemporaryDirectory { _ in
            _ = try installMembers()
            _ = try Member(id: "a", roles: [.admin], title: "Amy Lee").saveToFile()
            let text = String(decoding: try bytes(of: Member.self), as: UTF8.self)
            #expect(text == Self.members.replacingOccurrences(of: "\"Amy\"", with: "\"Amy Lee\"") + "\n")
        }
    }

    @Test func aStoreChangingAnArrayThatLostAnElementWhenReadThrowsAndWritesNothing() throws {
        try inTemporaryDirectory { _ in
            let stored = try installMembers()
            let error = persistenceError {
                try FileStore<Member>().update(Member(id: "a", roles: [], title: "Amy"))
            }
            #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0].roles[]"]))
            #expect(try bytes(of: Member.self) == stored)
        }
    }
}
