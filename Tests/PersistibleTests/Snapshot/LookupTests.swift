import Foundation
import Testing

@testable import Persistible

/// `loadFromFile(id:)` on a file not cached decodes the record it finds, and the last one, which shows that the
/// stored key `id` holds the identity; other records it reads as bytes, which is what makes a lookup in a command-line
/// call cost the file's scan rather than its decode.
@Suite struct LookupTests {
    @Test func aLookupDecodesTheRecordItFindsAndTheLastAlone() throws {
        try inTemporaryDirectory { _ in
            try (1...100).map { DecodeCounted(id: $0, name: "number \($0)") }.saveToFile()
            for (id, expected) in [(50, 2), (100, 1), (1, 2), (1_000, 1)] {
                DecodeCounted.clearArchiveCache()
                let decodes = Counter()
                let found = try DecodeCounted.$decodes.withValue(decodes) { try DecodeCounted.loadFromFile(id: id) }
                #expect(found == (id <= 100 ? DecodeCounted(id: id, name: "number \(id)") : nil))
                #expect(decodes.value == expected, "looking up \(id)")
            }
        }
    }

    struct Plain: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var name: String
    }

    struct Named: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var count: Int
    }

    /// Bytes that are not the one way to write an `id` are decoded, whatever they look like.
    @Test func anIdWrittenAnotherWayIsStillFound() throws {
        try inTemporaryDirectory { _ in
            try Data(#"[{"id": 2.0, "name": "two"}, {"id": 1e1, "name": "ten"}, {"id": 3, "name": "three"}]"#.utf8)
                .write(to: Plain.archiveUrl)
            #expect(try Plain.loadFromFile(id: 2) == Plain(id: 2, name: "two"))
            #expect(try Plain.loadFromFile(id: 10) == Plain(id: 10, name: "ten"))
            #expect(try Plain.loadFromFile(id: 4) == nil)
            try Data(#"[{"id": "\u0041", "count": 1}, {"id": "cafe\u0301", "count": 2}, {"id": "b", "count": 3}]"#.utf8)
                .write(to: Named.archiveUrl)
            #expect(try Named.loadFromFile(id: "A") == Named(id: "A", count: 1))
            #expect(try Named.loadFromFile(id: "caf\u{E9}") == Named(id: "café", count: 2))
            #expect(try Named.loadFromFile(id: "a") == nil)
        }
    }

    /// A type whose stored `id` is not its identity.
    struct Renamed: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var other: Int

        enum CodingKeys: String, CodingKey {
            case id = "key", other = "id"
        }
    }

    @Test func anIdentityStoredUnderAnotherKeyIsFound() throws {
        try inTemporaryDirectory { _ in
            try [Renamed(id: 1, other: 2), Renamed(id: 2, other: 1)].saveToFile()
            Renamed.clearArchiveCache()
            #expect(try Renamed.loadFromFile(id: 1) == Renamed(id: 1, other: 2))
            #expect(try Renamed.loadFromFile(id: 2) == Renamed(id: 2, other: 1))
        }
    }

    /// Several records with one `id`: which one is meant cannot be told, and the error names them.
    @Test func aLookupOfAnIdStoredTwiceIsRefused() throws {
        try inTemporaryDirectory { _ in
            try Data(#"[{"id": 1, "name": "first"}, {"id": 2, "name": "two"}, {"id": 1, "name": "last"}]"#.utf8)
                .write(to: Plain.archiveUrl)
            let error = persistenceError { _ = try Plain.loadFromFile(id: 1) }
            #expect(error?.reason == .repeatedIdentity(identity: "1", records: [0, 2]))
            #expect(try Plain.loadFromFile(id: 2) == Plain(id: 2, name: "two"))
        }
    }

    /// The record looked for does not decode: the error is the load's, which says which record and why.
    @Test func aRecordFoundThatDoesNotDecodeThrowsAsALoadDoes() throws {
        try inTemporaryDirectory { _ in
            try Data(#"[{"id": 1, "name": "one"}, {"id": 2, "name": 2}, {"id": 3, "name": "three"}]"#.utf8)
                .write(to: Plain.archiveUrl)
            let lookup = persistenceError { _ = try Plain.loadFromFile(id: 2) }
            let load = persistenceError { _ = try Plain.loadListFromFile() }
            #expect(lookup != nil)
            #expect(lookup?.description == load?.description)
            #expect(try Plain.loadFromFile(id: 3) == Plain(id: 3, name: "three"))
        }
    }
}
