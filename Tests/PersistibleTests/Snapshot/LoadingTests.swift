import Foundation
import Persistible
import Testing

@Suite struct LoadingTests {
    @Test func loadingAMissingFileThrowsFileNotFound() throws {
        try inTemporaryDirectory { _ in
            for load in [{ _ = try Person.loadFromFile() }, { _ = try Person.loadListFromFile() }, { _ = try Person.load() }] {
                let error = persistenceError(load)
                #expect(error?.reason == .fileNotFound)
                #expect(error?.url == Person.archiveUrl)
                #expect(error?.typeName == "Person")
            }
        }
    }

    @Test func loadingAListFromASingleValueGivesAnArrayOfOne() throws {
        try inTemporaryDirectory { _ in
            try sam.saveToFile()
            #expect(try Person.loadListFromFile() == [sam])
        }
    }

    @Test func loadingASingleValueFromAnArrayThrowsAClearError() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            let error = persistenceError { _ = try Person.loadFromFile() }
            #expect(error?.reason == .holdsArray(count: 2))
            #expect(error?.description.contains("loadListFromFile()") == true)
        }
    }

    @Test func loadWithACompletionPassesWhatTheFileHolds() throws {
        try inTemporaryDirectory { _ in
            try [sam, amy].saveToFile()
            try sam.saveToFile()
            try maame.saveToFile()
            var names: [String] = []
            try Person.load { data in
                switch data {
                case .single(let val):
                    names = [val.name]
                case .array(let values):
                    names = values.map(\.name)
                }
            }
            #expect(names == ["Samuel", "Amy", "Maame"])
        }
    }

    @Test func persistenceDataListsItsValues() {
        #expect(PersistenceData.single(sam).values == [sam])
        #expect(PersistenceData.array([sam, amy]).values == [sam, amy])
        #expect(PersistenceData<Person>.array([]).values.isEmpty)
    }

    @Test func aValueWhoseEncodingIsAnArrayLoadsAsASingleValue() throws {
        struct Pair: Codable, Hashable, Persistible {
            var first: Int
            var second: Int
            init(_ first: Int, _ second: Int) { (self.first, self.second) = (first, second) }
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                (first, second) = (try container.decode(Int.self), try container.decode(Int.self))
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(first)
                try container.encode(second)
            }
        }
        try inTemporaryDirectory { _ in
            try Pair(1, 2).saveToFile()
            #expect(try Pair.load() == .single(Pair(1, 2)))
            try Pair(3, 4).saveToFile()
            #expect(try Pair.load() == .array([Pair(1, 2), Pair(3, 4)]))
        }
    }

    @Test func errorsDescribeWhatHappenedAndWhatToDo() throws {
        try inTemporaryDirectory { _ in
            try Data("[{\"name\": \"Samuel\"}]".utf8).write(to: Person.archiveUrl)
            let error = persistenceError { _ = try Person.loadListFromFile() }
            guard case .unreadable(let codingPath, _) = error?.reason else {
                Issue.record("expected unreadable, got \(String(describing: error))")
                return
            }
            #expect(codingPath == "[0]")
            let description = try #require(error?.description)
            #expect(description.contains(Person.archiveUrl.path))
            #expect(description.contains("'age'"))
            #expect(description.contains("left as it is"))
            // What a program shows its user is what happened; the description adds what the developer can do.
            let localized = try #require(error?.localizedDescription)
            #expect(localized == error?.errorDescription)
            #expect(description.hasPrefix(localized))
        }
    }
}
