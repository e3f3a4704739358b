import Foundation
import Persistible
import Testing

/// Every row of the table of what a save does.
@Suite struct SavingTests {
    @Test func savingOneValueToNoFileWritesThatValue() throws {
        try inTemporaryDirectory { _ in
            try sam.saveToFile()
            #expect(try Person.load() == .single(sam))
            #expect(try Person.loadFromFile() == sam)
        }
    }

    @Test func savingAnArrayToNoFileWritesItWithoutDuplicatesInOrder() throws {
        try inTemporaryDirectory { _ in
            try [amy, sam, amy, maame, sam].saveToFile()
            #expect(try Person.load() == .array([amy, sam, maame]))
        }
    }

    @Test func savingTheSameSingleValueWritesNothing() throws {
        try inTemporaryDirectory { _ in
            try sam.saveToFile()
            let before = try FileManager.default.attributesOfItem(atPath: Person.archiveUrl.path)
            try sam.saveToFile()
            let after = try FileManager.default.attributesOfItem(atPath: Person.archiveUrl.path)
            #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int)
            #expect(try Person.load() == .single(sam))
        }
    }

    @Test func savingAnotherValueOverASingleValueMakesAnArray() throws {
        try inTemporaryDirectory { _ in
            try sam.saveToFile()
            try amy.saveToFile()
            #expect(try Person.load() == .array([sam, amy]))
        }
    }

    @Test func savingAnArrayOverASingleValueKeepsTheOldValueFirst() throws {
        try inTemporaryDirectory { _ in
            try sam.saveToFile()
            try [amy, sam, maame].saveToFile()
            #expect(try Person.load() == .array([sam, amy, maame]))
        }
    }

    @Test func savingAnArrayHoldingOnlyTheSingleValueWritesNothing() throws {
        try inTemporaryDirectory { _ in
            try sam.saveToFile()
            let before = try bytes(of: Person.self)
            try [sam, sam].saveToFile()
            #expect(try bytes(of: Person.self) == before)
            #expect(try Person.load() == .single(sam))
        }
    }

    @Test func savingAValueOntoAnArrayAppendsItUnlessPresent() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            try maame.saveToFile()
            #expect(try Person.load() == .array([sam, amy, maame]))
            let before = try bytes(of: Person.self)
            try amy.saveToFile()
            #expect(try bytes(of: Person.self) == before)
        }
    }

    @Test func savingAnArrayOntoAnArrayKeepsOrderAndAppendsOnlyNewValues() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            try [maame, amy, maame, sam].saveToFile()
            #expect(try Person.load() == .array([sam, amy, maame]))
            let before = try bytes(of: Person.self)
            try [amy, sam].saveToFile()
            #expect(try bytes(of: Person.self) == before)
        }
    }

    @Test func savingAnEmptyArrayDoesNothing() throws {
        try inTemporaryDirectory { directory in
            try [Person]().saveToFile()
            #expect(try directory.contents().isEmpty)
            try sam.saveToFile()
            let before = try bytes(of: Person.self)
            try [Person]().saveToFile()
            #expect(try bytes(of: Person.self) == before)
        }
    }

    @Test(arguments: Volume.allCases)
    func appendingGivesTheBytesThatEncodingTheWholeArrayGives(on volume: Volume) throws {
        try inTemporaryDirectory(on: volume) { _ in
            let people = (0..<20).map { Person(name: "P\($0) \"quoted\"\n", age: $0, school: "S/\($0)") }
            try Array(people[0..<5]).saveToFile()
            for person in people[5...] { try person.saveToFile() }
            try Array(people[10...]).saveToFile()
            #expect(try bytes(of: Person.self) == storedForm(Person.archiveEncoder.encode(people)))
        }
    }

    @Test func aLongArrayIsWrittenAsEncodingItWholeWrites() throws {
        // Long arrays are encoded in slices and spliced: the file must not show it, in either format.
        struct Compact: Codable, Hashable, Persistible {
            var number: Int
            var text: String
            // Sorted keys, so that two encodings of one value give the same bytes.
            static var archiveEncoder: JSONEncoder {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                return encoder
            }
        }
        try inTemporaryDirectory { _ in
            let people = (0..<10_000).map { Person(name: "P\($0) \"q\"", age: $0 % 90, school: "S/\($0 % 7)") }
            // A duplicate after the first slice, so the array written is not the one given.
            try (people + [people[5_000]]).saveToFile()
            #expect(try bytes(of: Person.self) == storedForm(Person.archiveEncoder.encode(people)))
            let more = (10_000..<19_000).map { Person(name: "P\($0)", age: $0 % 90, school: "S") }
            try more.saveToFile()
            #expect(try bytes(of: Person.self) == storedForm(Person.archiveEncoder.encode(people + more)))

            let compact = (0..<9_000).map { Compact(number: $0, text: "t\($0)") }
            try compact.saveToFile()
            #expect(try bytes(of: Compact.self) == storedForm(Compact.archiveEncoder.encode(compact)))
            #expect(try Compact.loadListFromFile() == compact)
        }
    }

    @Test func aTrailingCommaThatTheDecoderAcceptsIsNotDoubled() throws {
        // Foundation's decoder reads `[a, b,]` as `[a, b]`; an append after it must still give JSON it reads.
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            _ = try Person.loadListFromFile()
            var contents = try bytes(of: Person.self)
            contents.removeLast(2)
            contents.append(Data(",\n]".utf8))
            try contents.write(to: Person.archiveUrl)
            #expect(try Person.loadListFromFile() == [sam, amy])
            try maame.saveToFile()
            #expect(try Person.loadListFromFile() == [sam, amy, maame])
            #expect(try Person.archiveDecoder.decode([Person].self, from: bytes(of: Person.self)) == [sam, amy, maame])
        }
    }

    @Test func appendingToAFileInAnotherEncodingKeepsItReadable() throws {
        // Foundation's decoder reads UTF-16 and UTF-32 too; the splice writes UTF-8 and must not mix the two.
        for encoding in [String.Encoding.utf16BigEndian, .utf16LittleEndian, .utf32BigEndian] {
            try inTemporaryDirectory { _ in
                let text = String(decoding: try Person.archiveEncoder.encode([sam, amy]), as: UTF8.self)
                try #require(text.data(using: encoding)).write(to: Person.archiveUrl)
                #expect(try Person.loadListFromFile() == [sam, amy])
                try maame.saveToFile()
                Person.clearArchiveCache()
                #expect(try Person.loadListFromFile() == [sam, amy, maame], "\(encoding)")
            }
        }
    }

    @Test func appendingHandlesValuesWithEmptyAndNestedContainers() throws {
        struct Nested: Codable, Hashable, Persistible {
            var tags: [String]
            var attributes: [String: [Int]]
            var optional: String?
        }
        try inTemporaryDirectory { _ in
            let values = [
                Nested(tags: [], attributes: [:], optional: nil),
                Nested(tags: ["a", "b"], attributes: ["x": [], "y": [1, 2]], optional: "z"),
                Nested(tags: [""], attributes: ["": [0]], optional: ""),
            ]
            try values[0].saveToFile()
            try values[1].saveToFile()
            try values[2].saveToFile()
            #expect(try Nested.loadListFromFile() == values)
            #expect(try bytes(of: Nested.self) == storedForm(Nested.archiveEncoder.encode(values)))
        }
    }

    @Test func outputIsPrettyPrintedWithSortedKeys() throws {
        try inTemporaryDirectory { _ in
            try [sam].saveToFile()
            let text = String(decoding: try bytes(of: Person.self), as: UTF8.self)
            #expect(text == """
                [
                  {
                    "age" : 35,
                    "name" : "Samuel",
                    "school" : "Accra Academy"
                  }
                ]
                """ + "\n")
        }
    }

    /// As an editor shows it: slashes as they are, empty containers closed on their line, a final newline; and
    /// files written before, with none of these, still read and grow.
    @Test func filesReadAsPeopleExpectThemInAnEditor() throws {
        struct Link: Codable, Hashable, Persistible {
            var url: String
            var tags: [String]
            var counts: [String: Int]
        }
        try inTemporaryDirectory { _ in
            try [Link]().overwriteFile()
            #expect(String(decoding: try bytes(of: Link.self), as: UTF8.self) == "[]\n")
            let link = Link(url: "https://example.com/a/b", tags: [], counts: [:])
            try link.saveToFile()
            #expect(String(decoding: try bytes(of: Link.self), as: UTF8.self) == """
                [
                  {
                    "counts" : {},
                    "tags" : [],
                    "url" : "https://example.com/a/b"
                  }
                ]

                """)
            try link.overwriteFile()
            #expect(String(decoding: try bytes(of: Link.self), as: UTF8.self).hasSuffix("\"tags\" : [],\n  \"url\" : \"https://example.com/a/b\"\n}\n"))

            let earlier = "[\n  {\n    \"counts\" : {\n\n    },\n    \"tags\" : [\n\n    ],\n"
                + "    \"url\" : \"https:\\/\\/example.com\"\n  }\n]"
            try Data(earlier.utf8).write(to: Link.archiveUrl)
            Link.clearArchiveCache()
            let older = Link(url: "https://example.com", tags: [], counts: [:])
            #expect(try Link.loadListFromFile() == [older])
            try link.saveToFile()
            #expect(try Link.loadListFromFile() == [older, link])
            #expect(String(decoding: try bytes(of: Link.self), as: UTF8.self).hasSuffix("\"url\" : \"https://example.com/a/b\"\n  }\n]\n"))
        }
    }

    @Test func aCustomEncoderIsHonored() throws {
        try inTemporaryDirectory { _ in
            let launch = Event(title: "Launch", date: Date(timeIntervalSince1970: 1_700_000_000))
            try launch.saveToFile()
            let text = String(decoding: try bytes(of: Event.self), as: UTF8.self)
            #expect(text.contains("\"2023-11-14T22:13:20Z\""))
            #expect(try Event.loadFromFile() == launch)
        }
    }

    @Test func savesWithoutFsyncAndWithoutCacheBehaveTheSame() throws {
        try inTemporaryDirectory { _ in
            for number in [1, 2, 2, 3] {
                try Quick(number: number).saveToFile()
                try Uncached(number: number).saveToFile()
            }
            #expect(try Quick.loadListFromFile().map(\.number) == [1, 2, 3])
            #expect(try Uncached.loadListFromFile().map(\.number) == [1, 2, 3])
        }
    }

    @Test func deletingRemovesTheFileAndTheNextSaveStartsAfresh() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            try Person.deleteFile()
            #expect(!FileManager.default.fileExists(atPath: Person.archiveUrl.path))
            try Person.deleteFile()
            try maame.saveToFile()
            #expect(try Person.load() == .single(maame))
        }
    }

    @Test func deletingInADirectoryThatDoesNotExistDoesNothing() throws {
        let directory = try TemporaryDirectory()
        try withArchiveDirectory(directory.file("absent")) {
            try Person.deleteFile()
        }
        #expect(try directory.contents().isEmpty)
    }

    @Test func valuesCanBeSavedFromDetachedTasks() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try withArchiveDirectory(url) { _ = try Note(text: "note \(index)").saveToFile() }
                }
            }
            try await group.waitForAll()
        }
        let task = Task.detached {
            try withArchiveDirectory(url) { try Note.loadListFromFile() }
        }
        #expect(Set(try await task.value.map(\.text)) == Set((0..<8).map { "note \($0)" }))
    }
}

/// A type that makes a new decoder for every operation, as a careless conformance might.
private struct FreshDecoder: Codable, Hashable, Persistible {
    var number: Int
    static var archiveDecoder: JSONDecoder { JSONDecoder() }
}

@Suite struct CacheTests {
    @Test func aTypeThatMakesANewDecoderEachTimeStillSavesAndLoadsCorrectly() throws {
        try inTemporaryDirectory { _ in
            for number in [1, 2, 2, 3] { try FreshDecoder(number: number).saveToFile() }
            try [FreshDecoder(number: 3), FreshDecoder(number: 4)].saveToFile()
            #expect(try FreshDecoder.loadListFromFile().map(\.number) == [1, 2, 3, 4])
            #expect(try bytes(of: FreshDecoder.self) == storedForm(FreshDecoder.archiveEncoder.encode((1...4).map(FreshDecoder.init))))
        }
    }
}
