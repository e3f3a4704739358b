import Foundation
import Persistible
import Testing

/// Every kind of model change, every operation, both directions: new code on a file an older version wrote, and old
/// code on a file a newer version wrote, each starting from a checked-in fixture.
@Suite struct EvolutionMatrixTests {
    typealias Model = Persistible & Codable & Hashable & Identifiable<String>

    static let operations = ["load", "save", "update", "delete", "synchronize"]

    /// Runs `operation` as `Reader` on the fixture and checks that `Reader` then loads what it should.
    ///
    /// - Returns: The fixture's bytes and the file's bytes afterwards.
    private func run<Reader: Model>(
        _ operation: String, as reader: Reader.Type, on name: String,
        change: (Reader) -> Reader, extra: Reader
    ) throws -> (before: Data, after: Data, untouched: [String]) {
        let before = try install(name, as: Reader.self)
        let loaded = try Reader.loadListFromFile()
        let store = FileStore<Reader>()
        var expected = loaded
        var untouched = loaded.map(\.id)
        switch operation {
        case "load":
            break
        case "save":
            try extra.saveToFile()
            expected.append(extra)
        case "update":
            expected[0] = change(loaded[0])
            try store.update(expected[0])
            untouched.removeFirst()
        case "delete":
            try store.delete(loaded[0])
            expected.removeFirst()
            untouched.removeFirst()
        default:
            expected = Array(loaded.dropLast()) + [extra]
            try store.synchronize(with: expected)
            untouched.removeLast()
        }
        Reader.clearArchiveCache()
        #expect(try Reader.loadListFromFile() == expected, "\(operation) as \(Reader.self) on \(name)")
        let after = try bytes(of: Reader.self)
        if operation == "load" { #expect(after == before, "a load wrote \(name)") }
        return (before, after, untouched)
    }

    /// New code on an old file: every operation works, and a write stores the file in the current format, except
    /// for the keys the new type no longer knows, which records keep.
    @Test(arguments: operations)
    func newCodeOnOldFiles(_ operation: String) throws {
        func check<New: Model>(_ type: New.Type, _ name: String, change: (New) -> New, extra: New) throws {
            try inTemporaryDirectory { directory in
                let (_, after, _) = try run(operation, as: New.self, on: name, change: change, extra: extra)
                if operation != "load" {
                    // Every record that needed a default or migration is now in the current format.
                    let values = try New.loadListFromFile()
                    let reencoded = try New.archiveDecoder.decode([New].self, from: after)
                    #expect(reencoded == values, "\(operation) on \(name) left a record in an old format")
                }
                #expect(try directory.temporaries().isEmpty)
            }
        }
        try check(AddedField.V2.self, "added-field-v1", change: { var t = $0; t.priority = 7; return t },
                  extra: .init(id: "x", title: "Extra", priority: 1))
        try check(OptionalAdded.V2.self, "optional-added-v1", change: { var t = $0; t.note = "n"; return t },
                  extra: .init(id: "x", title: "Extra", note: nil))
        try check(Renamed.V2.self, "renamed-v1", change: { var t = $0; t.title += "!"; return t },
                  extra: .init(id: "x", title: "Extra"))
        try check(Renamed.V3.self, "renamed-mixed", change: { var t = $0; t.tags = ["t"]; return t },
                  extra: .init(id: "x", title: "Extra", tags: []))
        try check(Removed.V2.self, "removed-v1", change: { var t = $0; t.title += "!"; return t },
                  extra: .init(id: "x", title: "Extra"))
        try check(TypeChanged.V2.self, "type-changed-v1", change: { var t = $0; t.estimate += 1; return t },
                  extra: .init(id: "x", estimate: 4))
        try check(EnumCase.V2.self, "enum-v1", change: { var t = $0; t.state = .archived; return t },
                  extra: .init(id: "x", state: .archived))
        try check(Nested.V2.self, "nested-v1", change: { var t = $0; t.address.city = "Tema"; return t },
                  extra: .init(id: "x", address: .init(street: "9 Way", city: "Ho")))
    }

    /// Old code on a new file it can read: every operation works, the records it does not change keep their bytes,
    /// and the newer version still reads every value it wrote in them.
    @Test(arguments: operations)
    func oldCodeOnNewFilesItCanRead(_ operation: String) throws {
        func check<Old: Model, New: Model>(
            _ type: Old.Type, reading name: String, writtenBy newer: New.Type,
            change: (Old) -> Old, extra: Old
        ) throws {
            try inTemporaryDirectory { directory in
                let (before, after, untouched) = try run(operation, as: Old.self, on: name, change: change, extra: extra)
                let original = try New.archiveDecoder.decode([New].self, from: before)
                // As the newer version loads it, with its defaults for the records the older one added.
                New.clearArchiveCache()
                let now = try New.loadListFromFile()
                for id in untouched {
                    #expect(now.first { $0.id == id } == original.first { $0.id == id }, "\(operation): \(id) changed")
                }
                // Each untouched record's stored bytes are still in the file, byte for byte.
                let ranges = try storedRecords(before)
                for (index, record) in original.enumerated() where untouched.contains(record.id) {
                    #expect(after.range(of: ranges[index]) != nil, "\(operation): record \(index) was re-encoded")
                }
                #expect(try directory.temporaries().isEmpty)
            }
        }
        try check(AddedField.V1.self, reading: "added-field-v2", writtenBy: AddedField.V2.self,
                  change: { var t = $0; t.title += "!"; return t }, extra: .init(id: "x", title: "Extra"))
        try check(OptionalAdded.V1.self, reading: "optional-added-v2", writtenBy: OptionalAdded.V2.self,
                  change: { var t = $0; t.title += "!"; return t }, extra: .init(id: "x", title: "Extra"))
        try check(Nested.V1.self, reading: "nested-v2", writtenBy: Nested.V2.self,
                  change: { var t = $0; t.address.street += "!"; return t },
                  extra: .init(id: "x", address: .init(street: "9 Way")))
        try check(EnumCase.V1.self, reading: "enum-v1", writtenBy: EnumCase.V2.self,
                  change: { var t = $0; t.state = .done; return t }, extra: .init(id: "x", state: .open))
    }

    /// Old code on a new file it cannot read: every operation throws a version mismatch and the file keeps its bytes.
    @Test(arguments: operations)
    func oldCodeOnNewFilesItCannotRead(_ operation: String) throws {
        func check<Old: Model>(_ type: Old.Type, _ name: String, sample: Old) throws {
            try inTemporaryDirectory { directory in
                let before = try install(name, as: Old.self)
                let error = persistenceError {
                    switch operation {
                    case "load": _ = try Old.loadListFromFile()
                    case "save": try sample.saveToFile()
                    case "update": try FileStore<Old>().update(sample)
                    case "delete": try FileStore<Old>().delete(sample)
                    default: try FileStore<Old>().synchronize(with: [sample])
                    }
                }
                #expect(error?.versionMismatch != nil, "\(operation) as \(Old.self) on \(name)")
                #expect(try bytes(of: Old.self) == before)
                #expect(try directory.temporaries().isEmpty)
            }
        }
        try check(Renamed.V1Persistible.self, "renamed-v2", sample: .init(id: "a", name: "x"))
        try check(Removed.V1.self, "removed-v2", sample: .init(id: "a", title: "x", legacy: "y"))
        try check(TypeChanged.V1.self, "type-changed-v2", sample: .init(id: "a", estimate: "1h"))
        // The record version 1 cannot read: a save by identity decodes only the records with its identity.
        try check(EnumCase.V1.self, "enum-v2", sample: .init(id: "b", state: .open))
    }

    /// The bytes of each record of an array file, as stored.
    private func storedRecords(_ file: Data) throws -> [Data] {
        let text = String(decoding: file, as: UTF8.self)
        // The fixtures are in the package's format: records start at "  {" and end at "  }".
        var records: [Data] = []
        var current: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "  {" { current = [] }
            current.append(line)
            if line == "  }" || line == "  }," {
                var record = current.joined(separator: "\n")
                if record.hasSuffix(",") { record.removeLast() }
                records.append(Data(record.dropFirst(2).utf8))
            }
        }
        return records
    }
}
