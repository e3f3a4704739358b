import Foundation
import Persistible
import Testing

/// A stored value that this version reads as another value (a role it does not know read as `.unknown`, a number
/// read as a `Float` with fewer digits) keeps its stored bytes through every write that leaves it as it was read,
/// appends included; a write that assigns another value writes that value.
@Suite struct ReadAsAnotherValueTests {
    /// An older version of a user: it reads a role it does not know, or one stored as something other than a
    /// string, as `.unknown`, and fills `active`, which the newer version that wrote `users-v3` renamed `enabled`.
    struct User: Codable, Hashable, Identifiable, Persistible {
        enum Role: String, Codable, Hashable {
            case user, admin, unknown

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                self = (try? container.decode(String.self)).flatMap(Role.init(rawValue:)) ?? .unknown
            }
        }

        var id: String
        var name: String
        var role: Role
        var active = true

        static var fileName: String { "users" }
        static var archiveDefaults: User? { User(id: "", name: "", role: .user) }
    }

    /// Settings whose theme a newer version may set to one this version does not know.
    struct Settings: Codable, Hashable, Persistible {
        enum Theme: String, Codable, Hashable {
            case light, dark, unknown

            init(from decoder: any Decoder) throws {
                self = Theme(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .unknown
            }
        }

        var theme: Theme
        var volume: Int

        static var fileName: String { "settings" }
    }

    /// A reading whose value this version keeps as a `Float`, with fewer digits than stored.
    struct Reading: Codable, Hashable, Identifiable, Persistible {
        struct Measure: Codable, Hashable {
            var unit: String
            var value: Float
        }

        var id: String
        var measure: Measure
        var note: String

        static var fileName: String { "readings" }
    }

    /// `users-v3` once `User` has written its records in the current format, with `active` filled.
    private let usersRewritten = """
        [
          {
            "active" : true,
            "enabled" : true,
            "id" : "a",
            "name" : "Ada",
            "role" : "superuser"
          },
          {
            "active" : true,
            "enabled" : false,
            "id" : "b",
            "name" : "Bo",
            "role" : "admin"
          }
        """

    private let cy = """
          {
            "active" : true,
            "id" : "c",
            "name" : "Cy",
            "role" : "user"
          }
        ]
        """

    private func text<T: Persistible>(of type: T.Type) throws -> String {
        String(decoding: try bytes(of: type), as: UTF8.self)
    }

    private func write<T: Persistible>(_ text: String, as type: T.Type) throws {
        try FileManager.default.createDirectory(at: T.archiveDirectory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: T.archiveUrl)
    }

    @Test func anOlderVersionSavingOneMoreRecordKeepsARoleItDoesNotKnow() throws {
        try inTemporaryDirectory { directory in
            _ = try install("users-v3", as: User.self)
            #expect(try User.loadListFromFile().map(\.role) == [.unknown, .admin])
            try User(id: "c", name: "Cy", role: .user).saveToFile()
            #expect(try text(of: User.self) == usersRewritten + ",\n" + cy + "\n")
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func anOlderVersionInsertingIntoAStoreKeepsARoleItDoesNotKnow() throws {
        try inTemporaryDirectory { _ in
            _ = try install("users-v3", as: User.self)
            try FileStore<User>().insert(User(id: "c", name: "Cy", role: .user))
            #expect(try text(of: User.self) == usersRewritten + ",\n" + cy + "\n")
        }
    }

    @Test func editingAnotherFieldOfTheRecordKeepsItsRoleAndEditingTheRoleWritesTheNewOne() throws {
        try inTemporaryDirectory { _ in
            _ = try install("users-v3", as: User.self)
            var ada = try #require(try User.loadListFromFile().first)
            ada.name = "Ada L."
            try ada.saveToFile()
            let renamed = usersRewritten.replacingOccurrences(of: "\"Ada\"", with: "\"Ada L.\"")
            #expect(try text(of: User.self) == renamed + "\n]" + "\n")
            // The user assigned a role: it stands, and nothing this version does not know goes with the old one.
            ada.role = .admin
            try FileStore<User>().update(ada)
            #expect(try text(of: User.self) == renamed.replacingOccurrences(of: "superuser", with: "admin") + "\n]" + "\n")
        }
    }

    @Test func aStoreUpdateOfARecordThatNeedsNoDefaultKeepsItsRole() throws {
        try inTemporaryDirectory { _ in
            let bo = #"{"active":true,"id":"b","name":"Bo","role":"guest"}"#
            try write(#"[{"active":true,"id":"a","name":"Ada","role":"superuser"},"# + bo + "]", as: User.self)
            let store = FileStore<User>()
            try store.update(User(id: "a", name: "Ada L.", role: .unknown))
            #expect(try text(of: User.self) == """
                [
                  {
                    "active" : true,
                    "id" : "a",
                    "name" : "Ada L.",
                    "role" : "superuser"
                  },
                  \(bo)
                ]
                """ + "\n")
            // Assigning the value the role was read as is no change: the stored role stays.
            try store.update(User(id: "b", name: "Bo", role: .unknown, active: false))
            #expect(try text(of: User.self).contains(#""role" : "guest""#))
        }
    }

    @Test func aRoleStoredAsAnObjectIsKeptWhileUnchangedAndElseTheWriteThrows() throws {
        try inTemporaryDirectory { directory in
            let role = #"{"name":"superuser","since":2024}"#
            try write(#"[{"active":true,"id":"a","name":"Ada","role":"# + role + "}]", as: User.self)
            let store = FileStore<User>()
            try store.update(User(id: "a", name: "Ada L.", role: .unknown))
            let written = try bytes(of: User.self)
            #expect(String(decoding: written, as: UTF8.self).contains(#""role" : "# + role))
            let error = persistenceError { try store.update(User(id: "a", name: "Ada L.", role: .admin)) }
            #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0].role"]))
            #expect(try bytes(of: User.self) == written)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func updatingSettingsKeepsAThemeThisVersionDoesNotKnow() throws {
        try inTemporaryDirectory { _ in
            let stored = "{\n  \"theme\" : \"solarized\",\n  \"volume\" : 3\n}"
            try write(stored, as: Settings.self)
            try Settings.update(default: Settings(theme: .light, volume: 5)) { $0.volume = 4 }
            #expect(try text(of: Settings.self) == stored.replacingOccurrences(of: "3", with: "4") + "\n")
            try Settings(theme: .unknown, volume: 9).overwriteFile()
            #expect(try text(of: Settings.self) == stored.replacingOccurrences(of: "3", with: "9") + "\n")
            try Settings.update(default: Settings(theme: .light, volume: 5)) { $0.theme = .dark }
            #expect(try text(of: Settings.self) == "{\n  \"theme\" : \"dark\",\n  \"volume\" : 9\n}" + "\n")
        }
    }

    @Test func aNumberReadAsAFloatKeepsItsStoredDigitsWhileUnchanged() throws {
        try inTemporaryDirectory { _ in
            try write(#"[{"id":"a","measure":{"unit":"kg","value":3.14159265358979},"note":""}]"#, as: Reading.self)
            let store = FileStore<Reading>()
            var reading = try #require(try store.all().first)
            reading.note = "checked"
            try store.update(reading)
            #expect(try text(of: Reading.self).contains(#""value" : 3.14159265358979"#))
            reading.measure.value = 2.5
            try store.update(reading)
            #expect(try text(of: Reading.self).contains(#""value" : 2.5"#))
        }
    }
}
