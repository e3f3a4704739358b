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

/// A domain value whose stored form has no identity of its own, so that its identity as stored is its whole value,
/// and holds a field the domain value does not carry.
struct Memo: Hashable, Identifiable, Sendable, StoredRepresentable {
    struct Stored: Codable, Hashable, Sendable {
        var title: String
        var body: String
        /// Written by another app; this one leaves it out.
        var pinned: Bool?
    }

    var title: String
    var body: String
    var id: String { title }

    var stored: Stored { Stored(title: title, body: body) }

    init(title: String, body: String) {
        self.title = title
        self.body = body
    }

    init?(stored: Stored) {
        title = stored.title
        body = stored.body
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

    @Test func aSecondSynchronizeInOneBlockDoesNotCountTheUnconvertibleRecordsAgain() throws {
        let directory = try TemporaryDirectory()
        let users = try makeStore(in: directory)
        let amy = User(username: "amy", role: .admin)
        let (first, second) = try users.write { writer in
            (writer.synchronize(with: [amy]), writer.synchronize(with: [amy]))
        }
        #expect(first.removedUnconvertible == 1)
        #expect(second.removedUnconvertible == 0)
        #expect(second.isEmpty)
        #expect(try users.storage.all() == [Self.storedUsers[0]])
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

    @Test func aChangedUserKeepsTheRoleThisVersionReadsAsUnknownUntilTheRoleIsSet() throws {
        let directory = try TemporaryDirectory()
        let users = try makeStore(in: directory)
        let bob = { try users.storage.all().first { $0.username == "bob" } }
        // Bob's stored role "Superuser" reads as .unknown, and the write changes his avatar only.
        try users.update(User(username: "bob", avatarUrl: "c.png", role: .unknown))
        let changed = try bob()
        #expect(changed == User.Stored(avatar: "c.png", username: "bob", role: "Superuser"))
        try users.synchronize(with: [User(username: "bob", avatarUrl: "d.png", role: .unknown)])
        let synchronized = try bob()
        #expect(synchronized == User.Stored(avatar: "d.png", username: "bob", role: "Superuser"))
        // Setting his role writes it.
        try users.update(User(username: "bob", avatarUrl: "d.png", role: .owner))
        #expect(try bob() == User.Stored(avatar: "d.png", username: "bob", role: "Owner"))
    }

    @Test func aChangedRecordKeepsAStoredFieldItsDomainValueDoesNotCarry() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.json")
        try Data(#"[{"body": "one", "pinned": true, "title": "a"}, {"body": "two", "title": "b"}]"#.utf8)
            .write(to: url)
        let notes = DomainStore<Memo>(url: url)
        try notes.update(Memo(title: "a", body: "ONE"))
        try notes.insert(Memo(title: "c", body: "three"))
        #expect(try notes.storage.all() == [
            Memo.Stored(title: "a", body: "ONE", pinned: true), Memo.Stored(title: "b", body: "two"),
            Memo.Stored(title: "c", body: "three"),
        ])
    }

    @Test func synchronizeMatchesRecordsByDomainIdentityAndKeepsWhatTheirStoredTypeDoesNotKnow() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.json")
        // Written by a newer version, which added `color`, in a layout this one does not write.
        let a = #"{"title": "a", "body": "one", "color": "red"}"#
        let b = #"{"title": "b", "body": "two", "color": "blue"}"#
        let c = #"{"title": "c", "body": "three", "color": "green"}"#
        try Data("[\(a), \(b), \(c)]".utf8).write(to: url)
        let notes = DomainStore<Memo>(url: url)
        let result = try notes.synchronize(with: [
            Memo(title: "a", body: "one"), Memo(title: "b", body: "TWO"), Memo(title: "c", body: "three"),
        ])
        #expect(result.updated == [Memo(title: "b", body: "TWO")])
        var text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(text.contains(a) && text.contains(c), "untouched records keep their bytes: \(text)")
        #expect(try colors(in: url) == ["a": "red", "b": "blue", "c": "green"])

        // In another order, without `a`, with a new record: `b` is matched as the record it replaces.
        try notes.replaceAll(with: [
            Memo(title: "c", body: "three"), Memo(title: "b", body: "2"), Memo(title: "d", body: "four"),
        ])
        text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(text.contains(c), "untouched records keep their bytes: \(text)")
        #expect(try notes.all() == [
            Memo(title: "c", body: "three"), Memo(title: "b", body: "2"), Memo(title: "d", body: "four"),
        ])
        #expect(try colors(in: url) == ["b": "blue", "c": "green"])
    }

    /// Each record's `color`, by title, as the file holds them.
    private func colors(in url: URL) throws -> [String: String] {
        let records = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]] ?? []
        var colors: [String: String] = [:]
        for record in records {
            if let title = record["title"] as? String, let color = record["color"] as? String { colors[title] = color }
        }
        return colors
    }
}
