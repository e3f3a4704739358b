import Foundation
import Testing

@testable import Persistible

/// A save of a new identity onto a file not cached reads the other records' identities from their bytes and
/// decodes none of them but the last, which shows where the identity is stored: what makes an append in a
/// command-line call cost the file's scan and write rather than its decode.
@Suite struct IdentitiesOnlyTests {
    struct Counted: Codable, Hashable, Identifiable, Persistible {
        static let decodes = Counter()
        var id: Int
        var name: String

        init(id: Int, name: String) {
            (self.id, self.name) = (id, name)
        }

        init(from decoder: any Decoder) throws {
            Self.decodes.increment()
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
        }
    }

    @Test func aColdAppendDecodesOnlyTheLastRecordAndWritesWhatAWholeEncodingWrites() throws {
        try inTemporaryDirectory { _ in
            var records = (1...100).map { Counted(id: $0, name: "number \($0)") }
            try records.saveToFile()
            Counted.clearArchiveCache()
            Counted.decodes.reset()
            #expect(try Counted(id: 101, name: "new").saveToFile())
            #expect(Counted.decodes.value == 1)
            // The next save in this process starts from the identities it remembers.
            #expect(try Counted(id: 102, name: "newer").saveToFile())
            #expect(Counted.decodes.value == 1)
            records += [Counted(id: 101, name: "new"), Counted(id: 102, name: "newer")]
            #expect(try Data(contentsOf: Counted.archiveUrl) == currentFormat(records))
            // A lookup and a load decode what a write that read identities alone remembered.
            #expect(try Counted.loadFromFile(id: 101) == Counted(id: 101, name: "new"))
            #expect(try Counted.loadListFromFile() == records)
            #expect(!(try Counted(id: 102, name: "newer").saveToFile()))
        }
    }

    struct Plain: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var name: String
        static var cachesArchive: Bool { false }
    }

    /// An identity already stored is an edit, planned on decoded records: it stands where it stood, once.
    @Test func aColdSaveOfAStoredIdentityEditsIt() throws {
        try inTemporaryDirectory { _ in
            try [Plain(id: 1, name: "one"), Plain(id: 2, name: "two")].saveToFile()
            #expect(try Plain(id: 1, name: "uno").saveToFile())
            #expect(!(try Plain(id: 2, name: "two").saveToFile()))
            #expect(try Plain.loadListFromFile() == [Plain(id: 1, name: "uno"), Plain(id: 2, name: "two")])
        }
    }

    /// An `id` stored another way than the one its type's encoding has is the same identity.
    @Test func anIdWrittenAnotherWayIsTheSameIdentity() throws {
        try inTemporaryDirectory { _ in
            try Data(#"[{"id": 2.0, "name": "two"}, {"id": 3, "name": "three"}]"#.utf8).write(to: Plain.archiveUrl)
            #expect(try Plain(id: 2, name: "deux").saveToFile())
            #expect(try Plain.loadListFromFile() == [Plain(id: 2, name: "deux"), Plain(id: 3, name: "three")])
        }
    }

    /// A type that stores another value under `id`, and whose last record's two values happen to agree.
    struct Renamed: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var other: Int
        static var cachesArchive: Bool { false }

        enum CodingKeys: String, CodingKey {
            case id = "key", other = "id"
        }
    }

    @Test func anIdentityStoredUnderAnotherKeyIsNotAppendedTwice() throws {
        try inTemporaryDirectory { _ in
            try [Renamed(id: 2, other: 3), Renamed(id: 1, other: 1)].saveToFile()
            #expect(try Renamed(id: 2, other: 9).saveToFile())
            #expect(try Renamed.loadListFromFile() == [Renamed(id: 2, other: 9), Renamed(id: 1, other: 1)])
            #expect(try Renamed(id: 5, other: 5).saveToFile())
            #expect(try Renamed.loadListFromFile().map(\.id) == [2, 1, 5])
        }
    }
}
