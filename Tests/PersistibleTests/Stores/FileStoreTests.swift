import Foundation
import Persistible
import Testing

@Suite struct FileStoreTests {
    @Test func aStoreAndSaveToFileShareOneFile() throws {
        try inTemporaryDirectory { _ in
            let store = FileStore<Person>()
            #expect(store.url == Person.archiveUrl)
            try sam.saveToFile()
            #expect(try store.all() == [sam])
            try store.insert(amy)
            try maame.saveToFile()
            #expect(try Person.loadListFromFile() == [sam, amy, maame])
            try store.delete(amy)
            #expect(try Person.loadListFromFile() == [sam, maame])
            try amy.saveToFile()
            #expect(try store.filter(where: \.age == 25).sorted(by: \.name).result() == [amy, maame])
        }
    }

    @Test func theStoresIndexFollowsSavesMadeBetweenItsWrites() throws {
        try inTemporaryDirectory { _ in
            let store = FileStore<StressRecord>()
            try store.insert(StressRecord(id: "a"))
            try store.insert(StressRecord(id: "b"))
            try StressRecord(id: "c").saveToFile()
            var edited = StressRecord(id: "c")
            edited.payload = "edited"
            try store.insert(edited)
            try store.delete(StressRecord(id: "a"))
            var b = StressRecord(id: "b")
            b.payload = "edited"
            try store.update(b)
            #expect(try store.all() == [b, edited])
            #expect(try StressRecord.loadListFromFile() == [b, edited])
        }
    }

    @Test func aMissingFileIsAnEmptyStoreAndNothingIsWrittenUntilAChange() throws {
        let directory = try TemporaryDirectory()
        let store = FileStore<Movie>(url: directory.file("sub/movies.json"))
        #expect(try store.all().isEmpty)
        try store.deleteAll()
        try store.delete(alien)
        #expect(!FileManager.default.fileExists(atPath: store.url.path))
        try store.insert(alien)
        #expect(try FileStore<Movie>(url: directory.file("sub/movies.json")).all() == [alien])
    }

    @Test func anUnreadableFileMakesEveryOperationThrowAndStaysAsItWas() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("movies.json")
        let garbage = Data("{\"not\": \"movies\"}".utf8)
        try garbage.write(to: url)
        let store = FileStore<Movie>(url: url)
        let operations: [() throws -> Void] = [
            { _ = try store.all() },
            { try store.insert(alien) },
            { try store.deleteAll() },
            { try store.replaceAll(with: movies) },
            { _ = try store.synchronize(with: movies) },
            { _ = try store.filter(where: \.budget > 0).result() },
            { _ = try store.makeChild() },
            { try store.write { $0.insert(alien) } },
        ]
        for operation in operations {
            guard case .unreadable = persistenceError(operation)?.reason else {
                Issue.record("expected unreadable")
                continue
            }
        }
        #expect(try Data(contentsOf: url) == garbage)
        #expect(try directory.temporaries().isEmpty)
    }

    @Test func aStoreForATypeWithAnInvalidFileNameThrows() throws {
        struct Nameless: Codable, Hashable, Persistible {
            static var fileName: String { "" }
        }
        try inTemporaryDirectory { directory in
            let store = FileStore<Nameless>()
            #expect(persistenceError { _ = try store.all() }?.reason == .invalidFileName(""))
            #expect(persistenceError { try store.insert(Nameless()) }?.reason == .invalidFileName(""))
            let contents = try directory.contents()
            #expect(contents.isEmpty)
        }
    }

    @Test(arguments: Volume.allCases)
    func appendingThroughAStoreKeepsTheFilesCanonicalBytes(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let store = FileStore<Movie>(url: directory.file("movies.json"))
        try store.insert(contentsOf: movies[0..<2])
        for movie in movies[2...] { try store.insert(movie) }
        #expect(try Data(contentsOf: store.url) == storedForm(ArchiveFormat.encoder.encode(movies)))
    }

    @Test(arguments: Volume.allCases)
    func processesRunningWriteBlocksAtOnceLoseNothing(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        let writers = try (0..<4).map {
            try ChildProcess("StressWriter", ["transact", directory.path, "writer\($0)", "25"])
        }
        for writer in writers {
            let result = writer.finish()
            #expect(result.status == 0, "\(result.errors)")
        }
        let store = FileStore<StressRecord>(url: directory.file("stress.json"))
        let ids = try store.all().map(\.id)
        // Each block inserts two records and renames the first one it inserted in the block before.
        let expected = (0..<4).flatMap { writer in
            (0..<25).flatMap { block in ["writer\(writer)-\(block)-a", "writer\(writer)-\(block)-b"] }
        }
        #expect(ids.count == expected.count)
        #expect(Set(ids) == Set(expected))
        let payloads = try store.all().filter { $0.id.hasSuffix("-a") }.map(\.payload)
        #expect(payloads.filter { $0 == "checked" }.count == 4 * 24)
    }
}
