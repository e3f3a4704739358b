import Foundation
import Testing

@testable import Persistible

/// A write never makes a file larger than a load reads: it throws before making anything, and the file stays as it
/// was. The limit is lowered for each test's task, so that no test needs a file of 1 GiB.
@Suite struct SizeLimitTests {
    struct Line: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var text: String

        static var archiveDurability: Durability { .noSync }
    }

    struct Setting: Codable, Hashable, Persistible {
        var text: String

        static var archiveDurability: Durability { .noSync }
    }

    /// Each way of writing a file, with what it writes: each adds a few hundred bytes to the file below.
    enum Write: String, CaseIterable, Sendable {
        case save, append, coldAppend, edit, coldEdit, updateList, overwrite, storeWrite, asyncStoreWrite
        case updateSetting, overwriteSetting
    }

    private static let long = String(repeating: "x", count: 300)

    @Test(arguments: Write.allCases)
    func aWriteThatWouldPassTheLimitThrowsAndLeavesTheFileAsItWas(_ write: Write) async throws {
        let directory = try TemporaryDirectory()
        let isSetting = write == .updateSetting || write == .overwriteSetting
        try withArchiveDirectory(directory.url) {
            if isSetting {
                try Setting(text: "short").overwriteFile()
            } else {
                try (1...3).map { Line(id: $0, text: "line \($0)") }.saveToFile()
            }
        }
        let url = directory.file(isSetting ? "Setting.json" : "Line.json")
        let stored = try Data(contentsOf: url)
        // The file fits with room for less than any of the writes adds.
        let limit = Int64(stored.count + 100)
        let error = await FileReader.$sizeLimit.withValue(limit) {
            await asyncPersistenceError { try await Self.perform(write, in: directory.url) }
        }
        guard case .writeTooLarge(let size, limit)? = error?.reason else {
            Issue.record("\(write): \(String(describing: error))")
            return
        }
        #expect(size > limit)
        #expect(error?.url == url)
        #expect(try Data(contentsOf: url) == stored, "\(write) left the file as it was")
        #expect(try directory.temporaries() == [])
        // What the file held is still what a load returns.
        let loaded = try FileReader.$sizeLimit.withValue(limit) {
            try withArchiveDirectory(directory.url) { () throws -> [String] in
                isSetting ? [try Setting.loadFromFile().text] : try Line.loadListFromFile().map(\.text)
            }
        }
        #expect(loaded == (isSetting ? ["short"] : ["line 1", "line 2", "line 3"]))
    }

    private static func perform(_ write: Write, in directory: URL) async throws {
        let new = Line(id: 4, text: long)
        let edited = Line(id: 2, text: long)
        let store = withArchiveDirectory(directory) { FileStore<Line>() }
        if write == .asyncStoreWrite { return try await store.insert(new) }
        try withArchiveDirectory(directory) {
            switch write {
            case .save: try [new, Line(id: 5, text: "five")].saveToFile()
            case .append: try new.saveToFile()
            case .coldAppend:
                Line.clearArchiveCache()
                try new.saveToFile()
            case .edit: try edited.saveToFile()
            case .coldEdit:
                Line.clearArchiveCache()
                try edited.saveToFile()
            case .updateList: try Line.updateList { $0.append(new) }
            case .overwrite: try [new].overwriteFile()
            case .storeWrite: try store.write { $0.insert(new) }
            case .asyncStoreWrite: break
            case .updateSetting: try Setting.update(default: Setting(text: "")) { $0.text = long }
            case .overwriteSetting: try Setting(text: long).overwriteFile()
            }
        }
    }

    /// A file of exactly the limit is written and loads; one byte more is refused, naming the size it would have.
    @Test func aFileOfExactlyTheLimitIsWrittenAndLoads() throws {
        let values = (1...20).map { Line(id: $0, text: "line \($0)") }
        let measured = try TemporaryDirectory()
        try withArchiveDirectory(measured.url) { try values.overwriteFile() }
        let size = Int64(try Data(contentsOf: measured.file("Line.json")).count)

        let fits = try TemporaryDirectory()
        try FileReader.$sizeLimit.withValue(size) {
            try withArchiveDirectory(fits.url) {
                try values.overwriteFile()
                #expect(try Line.loadListFromFile() == values)
            }
        }
        let tooLarge = try TemporaryDirectory()
        let error = FileReader.$sizeLimit.withValue(size - 1) {
            withArchiveDirectory(tooLarge.url) { persistenceError { try values.overwriteFile() } }
        }
        #expect(error?.reason == .writeTooLarge(size: size, limit: size - 1))
        #expect(try tooLarge.contents().filter { $0.hasPrefix("Line.json") && $0 != "Line.json.lock" } == [])
        #expect(try tooLarge.temporaries() == [])
    }
}

/// Expects `body` to throw a `PersistenceError` and returns it.
private func asyncPersistenceError(_ body: () async throws -> Void) async -> PersistenceError? {
    do {
        try await body()
        Issue.record("expected a PersistenceError, nothing was thrown")
        return nil
    } catch let error as PersistenceError {
        return error
    } catch {
        Issue.record("expected a PersistenceError, got \(error)")
        return nil
    }
}
