import Foundation
import Testing

@testable import Persistible

/// A save of a new identity onto a file not cached reads the other records' identities from their bytes and
/// decodes none of them but the last, which shows where the identity is stored: what makes an append in a
/// command-line call cost the file's scan and write rather than its decode.
@Suite struct IdentitiesOnlyTests {
    /// Runs `body` in a temporary directory whose file holds records 1 to 100, which this process has not cached,
    /// with them and a counter for `DecodeCounted.decodes`.
    private func withHundredRecordsNotCached(_ body: (inout [DecodeCounted], Counter) throws -> Void) throws {
        try inTemporaryDirectory { _ in
            var records = (1...100).map { DecodeCounted(id: $0, name: "number \($0)") }
            try records.saveToFile()
            DecodeCounted.clearArchiveCache()
            try body(&records, Counter())
        }
    }

    @Test func aColdAppendDecodesOnlyTheLastRecordAndWritesWhatAWholeEncodingWrites() throws {
        try withHundredRecordsNotCached { records, decodes in
            try DecodeCounted.$decodes.withValue(decodes) { () throws in
                #expect(try DecodeCounted(id: 101, name: "new").saveToFile())
                #expect(decodes.value == 1)
                // The next save in this process starts from the identities it remembers.
                #expect(try DecodeCounted(id: 102, name: "newer").saveToFile())
                #expect(decodes.value == 1)
            }
            records += [DecodeCounted(id: 101, name: "new"), DecodeCounted(id: 102, name: "newer")]
            #expect(try Data(contentsOf: DecodeCounted.archiveUrl) == currentFormat(records))
            // A lookup and a load decode what a write that read identities alone remembered.
            #expect(try DecodeCounted.loadFromFile(id: 101) == DecodeCounted(id: 101, name: "new"))
            #expect(try DecodeCounted.loadListFromFile() == records)
            #expect(!(try DecodeCounted(id: 102, name: "newer").saveToFile()))
        }
    }

    struct Plain: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var name: String
        static var cachesArchive: Bool { false }
    }

    /// A save of a stored identity and a removal by identity decode the records with that identity alone (and the
    /// last, once, which shows where identities are stored), copy the others as stored, and write what the same
    /// changes on decoded records write; in this process too, after an append.
    @Test func aColdEditAndRemovalDecodeOnlyTheRecordsTheyChange() throws {
        try withHundredRecordsNotCached { records, decodes in
            try DecodeCounted.$decodes.withValue(decodes) { () throws in
                #expect(try DecodeCounted(id: 40, name: "forty").saveToFile())
                #expect(decodes.value == 2)
                #expect(try DecodeCounted(id: 7, name: "seven").removeFromFile())
                #expect(decodes.value == 3)
                // A removal forgets the identities: the next write reads them again, and decodes the last record.
                #expect(try DecodeCounted(id: 101, name: "new").saveToFile())
                #expect(decodes.value == 4)
                #expect(try DecodeCounted(id: 101, name: "newer").saveToFile())
                #expect(decodes.value == 5)
                #expect(!(try DecodeCounted(id: 40, name: "forty").saveToFile()))
                #expect(decodes.value == 6)
                #expect(!(try DecodeCounted(id: 7, name: "seven").removeFromFile()))
                #expect(decodes.value == 6)
            }
            records[39].name = "forty"
            records.remove(at: 6)
            records.append(DecodeCounted(id: 101, name: "newer"))
            #expect(try Data(contentsOf: DecodeCounted.archiveUrl) == currentFormat(records))
            #expect(try DecodeCounted.loadListFromFile() == records)
        }
    }

    /// An identity stored twice, as a file written by hand may hold it: an edit and a removal of it are refused,
    /// as on decoded records, and the file is left as it was.
    @Test func aColdChangeOfAnIdentityStoredTwiceIsRefused() throws {
        try inTemporaryDirectory { _ in
            let twice = #"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 1, "name": "c"}, {"id": 3, "name": "d"}]"#
            try Data(twice.utf8).write(to: Plain.archiveUrl)
            for change in [{ try Plain(id: 1, name: "e").saveToFile() }, { try Plain(id: 1, name: "x").removeFromFile() }] {
                let error = persistenceError { _ = try change() }
                #expect(error?.reason == .repeatedIdentity(identity: "1", records: [0, 2]))
                #expect(try Data(contentsOf: Plain.archiveUrl) == Data(twice.utf8))
            }
            #expect(try Plain(id: 2, name: "B").saveToFile())
            #expect(try Plain.loadListFromFile().map(\.name) == ["a", "B", "c", "d"])
        }
    }

    /// The same record as a newer version wrote it, with a key this one does not know.
    struct PlainWithTag: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var name: String
        var tag: [Int]?
        static var fileName: String { "Plain" }
        static var cachesArchive: Bool { false }
    }

    /// The same type, whose snapshot a load caches, so that its saves plan on decoded records.
    struct Cached: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var name: String
        static var fileName: String { "Plain" }
    }

    /// A cold edit keeps what the edited record holds beyond its type, and the other records byte for byte: it
    /// writes what the same edit on decoded records writes.
    @Test func aColdEditKeepsUnknownKeysAndTheRecordsItDoesNotChange() throws {
        try inTemporaryDirectory { _ in
            let stored = Data(#"[{"id": 1, "name": "a"}, {"id": 2, "name": "b", "tag": [7]}, {"id": 3, "name": "d"}]"#.utf8)
            try stored.write(to: Plain.archiveUrl)
            #expect(try Plain(id: 2, name: "c").saveToFile())
            let cold = try Data(contentsOf: Plain.archiveUrl)
            try stored.write(to: Plain.archiveUrl)
            _ = try Cached.loadListFromFile()
            #expect(try Cached(id: 2, name: "c").saveToFile())
            #expect(try Data(contentsOf: Plain.archiveUrl) == cold)
            #expect(String(decoding: cold, as: UTF8.self).contains(#"{"id": 3, "name": "d"}"#))
            #expect(try PlainWithTag.loadListFromFile() == [
                PlainWithTag(id: 1, name: "a"), PlainWithTag(id: 2, name: "c", tag: [7]), PlainWithTag(id: 3, name: "d"),
            ])
        }
    }

    /// A record this version cannot read (another version's) stays as stored around a cold edit or removal of
    /// another; a change of its own identity decodes it, and throws as a load does, writing nothing.
    @Test func aRecordThisVersionCannotReadStaysAroundAColdChangeOfAnother() throws {
        try inTemporaryDirectory { directory in
            let other = #"{"id": 3, "name": 3}"#
            try Data((#"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, "# + other + "]").utf8).write(to: Plain.archiveUrl)
            #expect(try Plain(id: 2, name: "c").saveToFile())
            #expect(try Plain(id: 1, name: "a").removeFromFile())
            let written = try Data(contentsOf: Plain.archiveUrl)
            #expect(String(decoding: written, as: UTF8.self).contains(other))
            #expect(persistenceError { _ = try Plain.loadListFromFile() }?.versionMismatch?.record == 1)
            #expect(persistenceError { try Plain(id: 3, name: "x").saveToFile() }?.versionMismatch?.record == 1)
            #expect(persistenceError { try Plain(id: 3, name: "x").removeFromFile() }?.versionMismatch?.record == 1)
            #expect(try Data(contentsOf: Plain.archiveUrl) == written)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    /// An identity already stored is an edit: it stands where it stood, once.
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
