import Foundation
import Persistible
import Testing

/// The domain model of the seed articles: a role stored as a string, an enum in the app.
enum UserRole: String, Sendable {
    case unknown = "Unknown"
    case admin = "Admin"
    case owner = "Owner"
    case user = "User"
}

struct User: Hashable, Identifiable, Sendable, StoredRepresentable {
    struct Stored: Codable, Hashable, Identifiable, Sendable {
        var id: String { username }
        var avatar: String?
        var username: String
        var role: String
    }

    var username: String
    var avatarUrl: String?
    var role: UserRole
    var id: String { username }

    init(username: String, avatarUrl: String? = nil, role: UserRole) {
        self.username = username
        self.avatarUrl = avatarUrl
        self.role = role
    }

    var stored: Stored { Stored(avatar: avatarUrl, username: username, role: role.rawValue) }

    init?(stored: Stored) {
        // A user without a name is no user this version can show.
        guard !stored.username.isEmpty else { return nil }
        username = stored.username
        avatarUrl = stored.avatar
        role = UserRole(rawValue: stored.role) ?? .unknown
    }
}

/// A store of domain values over a file of their stored form.
@Suite struct DomainStoreTests {
    static let storedUsers = [
        User.Stored(avatar: nil, username: "amy", role: "Admin"),
        User.Stored(avatar: nil, username: "", role: "User"),
        User.Stored(avatar: "b.png", username: "bob", role: "Superuser"),
    ]

    /// A file of the stored users, written as another app version would have.
    private func makeStore(in directory: borrowing TemporaryDirectory) throws -> DomainStore<User> {
        let url = directory.file("users.json")
        try FileStore<User.Stored>(url: url).insert(contentsOf: Self.storedUsers)
        return DomainStore<User>(url: url)
    }

    @Test func readsConvertEachRecordAndSkipThoseThatDoNotConvert() throws {
        let directory = try TemporaryDirectory()
        let users = try makeStore(in: directory)
        let before = try Data(contentsOf: users.url)
        #expect(try users.all() == [
            User(username: "amy", role: .admin), User(username: "bob", avatarUrl: "b.png", role: .unknown),
        ])
        #expect(try users.filter(where: \.role == .admin).result().map(\.username) == ["amy"])
        #expect(try users.unconvertibleRecords() == [Self.storedUsers[1]])
        #expect(try Data(contentsOf: users.url) == before)
    }

    @Test func writesKeepUnconvertibleRecordsAndUntouchedStoredForms() throws {
        let directory = try TemporaryDirectory()
        let users = try makeStore(in: directory)
        try users.update(User(username: "amy", role: .owner))
        try users.insert(User(username: "cy", role: .user))
        // Bob's role reads as .unknown, but the write did not touch him, so "Superuser" stays.
        #expect(try users.storage.all() == [
            User.Stored(avatar: nil, username: "amy", role: "Owner"), Self.storedUsers[1], Self.storedUsers[2],
            User.Stored(avatar: nil, username: "cy", role: "User"),
        ])
        try users.write { writer in
            writer.delete(User(username: "bob", role: .unknown))
        }
        #expect(try users.storage.all().map(\.username) == ["amy", "", "cy"])
    }

    @Test func synchronizeRemovesUnconvertibleRecordsAndReportsThem() throws {
        let directory = try TemporaryDirectory()
        let users = try makeStore(in: directory)
        let amy = User(username: "amy", role: .admin)
        let bob = User(username: "bob", avatarUrl: "b.png", role: .unknown)
        let result = try users.synchronize(with: [bob, amy, User(username: "cy", role: .user)])
        #expect(result.removed.isEmpty)
        #expect(result.removedUnconvertible == 1)
        // Bob is unchanged, so his stored role stays "Superuser".
        #expect(try users.storage.all() == [
            Self.storedUsers[2], Self.storedUsers[0], User.Stored(avatar: nil, username: "cy", role: "User"),
        ])
        let second = try users.synchronize(with: [amy])
        #expect(second.removed.map(\.username) == ["bob", "cy"])
        #expect(second.removedUnconvertible == 0)
        #expect(try users.storage.all() == [Self.storedUsers[0]])
        // Once clean, the same synchronize changes nothing.
        #expect(try users.synchronize(with: [amy]).isEmpty)
    }

    @Test func childStoresAndAsyncFormsWorkOverDomainValues() async throws {
        let directory = try TemporaryDirectory()
        let users = try makeStore(in: directory)
        let draft = try users.makeChild()
        try await draft.insert(User(username: "dee", role: .owner))
        try await draft.delete(User(username: "amy", role: .admin))
        try await users.merge(draft)
        #expect(try await users.all().map(\.username) == ["bob", "dee"])
        let stored = try await users.storage.all()
        #expect(stored.map(\.username) == ["", "bob", "dee"])
    }
}
