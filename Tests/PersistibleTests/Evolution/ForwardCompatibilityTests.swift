import Foundation
import Persistible
import Testing

/// An older version never destroys what a newer one wrote: writes keep the bytes of the records they do not
/// change, and changed records keep the keys their type does not know.
@Suite struct ForwardCompatibilityTests {
    /// The fixture's bytes with `old` replaced by `new`, once.
    private func edited(_ name: String, _ old: String, _ new: String) throws -> Data {
        let text = String(decoding: try fixture(name), as: UTF8.self)
        let range = try #require(text.range(of: old))
        return Data(text.replacingCharacters(in: range, with: new).utf8)
    }

    @Test func oldCodeUpdatingOneRecordKeepsTheNewFieldInEveryRecord() throws {
        try inTemporaryDirectory { directory in
            _ = try install("added-field-v2", as: AddedField.V1.self)
            try FileStore<AddedField.V1>().update(AddedField.V1(id: "b", title: "Call Amy back"))
            #expect(try bytes(of: AddedField.V1.self) == storedForm(edited("added-field-v2", "Call Amy", "Call Amy back")))
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [2, 0, 5])
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func oldCodeDeletingAndSynchronizingKeepsTheBytesOfTheRest() throws {
        try inTemporaryDirectory { _ in
            let new = try install("added-field-v2", as: AddedField.V1.self)
            let store = FileStore<AddedField.V1>()
            let all = try store.all()
            try store.delete(all[1])
            let text = String(decoding: new, as: UTF8.self)
            let withoutB = text.replacingOccurrences(
                of: "  {\n    \"id\" : \"b\",\n    \"priority\" : 0,\n    \"title\" : \"Call Amy\"\n  },\n", with: "")
            #expect(String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self) == withoutB + "\n")
            // Synchronizing with what the store holds plus one new record keeps every stored byte.
            try store.synchronize(with: [all[0], all[2], AddedField.V1(id: "d", title: "Read")])
            let current = String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
            #expect(current.hasPrefix(String(withoutB.dropLast(2))))
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [2, 5, 0])
        }
    }

    @Test func oldCodeSavingKeepsTheNewFieldInEveryRecord() throws {
        try inTemporaryDirectory { _ in
            let new = try install("added-field-v2", as: AddedField.V1.self)
            try AddedField.V1(id: "d", title: "Read").saveToFile()
            let current = try bytes(of: AddedField.V1.self)
            #expect(current.prefix(new.count - 2) == new.prefix(new.count - 2))
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [2, 0, 5, 0])
        }
    }

    @Test func savingOntoASingleValueKeepsItsUnknownKeys() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: AddedField.V1.archiveDirectory, withIntermediateDirectories: true)
            let single = "{\n  \"id\" : \"a\",\n  \"priority\" : 3,\n  \"title\" : \"Alone\"\n}"
            try Data(single.utf8).write(to: AddedField.V1.archiveUrl)
            try AddedField.V1(id: "b", title: "Second").saveToFile()
            let text = String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
            let indented = single.replacingOccurrences(of: "\n", with: "\n  ")
            #expect(text.hasPrefix("[\n  " + indented + ",\n  {"))
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [3, 0])
        }
    }

    @Test func oldCodeReplacingRemovingAndOverwritingValuesKeepsTheNewField() throws {
        try inTemporaryDirectory { _ in
            _ = try install("added-field-v2", as: AddedField.V1.self)
            // A save of a stored id replaces that value where it stands.
            _ = try AddedField.V1(id: "b", title: "Call Amy back").saveToFile()
            #expect(try bytes(of: AddedField.V1.self) == storedForm(edited("added-field-v2", "Call Amy", "Call Amy back")))
            _ = try [AddedField.V1(id: "a", title: "Buy oat milk"), AddedField.V1(id: "d", title: "New")].saveToFile()
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [2, 0, 5, 0])
            _ = try AddedField.V1(id: "c", title: "Water plants").removeFromFile()
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [2, 0, 0])
            try [AddedField.V1(id: "b", title: "Call Amy back"), AddedField.V1(id: "a", title: "Buy oat milk")]
                .overwriteFile()
            #expect(try AddedField.V2.loadListFromFile().map(\.id) == ["b", "a"])
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [0, 2])
        }
    }

    @Test func oldCodeUpdatingASingleValueKeepsTheNewField() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: AddedField.V1.archiveDirectory, withIntermediateDirectories: true)
            let single = "{\n  \"id\" : \"a\",\n  \"priority\" : 3,\n  \"title\" : \"Alone\"\n}"
            try Data(single.utf8).write(to: AddedField.V1.archiveUrl)
            try AddedField.V1.update(default: AddedField.V1(id: "a", title: "")) { $0.title = "Together" }
            #expect(String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
                == single.replacingOccurrences(of: "Alone", with: "Together") + "\n")
            // Another record overwriting it does not take its keys.
            try AddedField.V1(id: "b", title: "Other").overwriteFile()
            #expect(try bytes(of: AddedField.V1.self) == storedForm(AddedField.V1.archiveEncoder.encode(
                AddedField.V1(id: "b", title: "Other"))))
        }
    }

    @Test func oldCodeKeepsAnOptionalItDoesNotKnow() throws {
        try inTemporaryDirectory { _ in
            _ = try install("optional-added-v2", as: OptionalAdded.V1.self)
            try FileStore<OptionalAdded.V1>().update(OptionalAdded.V1(id: "a", title: "Buy oat milk"))
            #expect(try bytes(of: OptionalAdded.V1.self) == storedForm(edited("optional-added-v2", "Buy milk", "Buy oat milk")))
        }
    }

    @Test func oldCodeKeepsANestedFieldItDoesNotKnow() throws {
        try inTemporaryDirectory { _ in
            _ = try install("nested-v2", as: Nested.V1.self)
            try FileStore<Nested.V1>().update(Nested.V1(id: "a", address: .init(street: "3 New St")))
            #expect(try bytes(of: Nested.V1.self) == storedForm(edited("nested-v2", "1 High St", "3 New St")))
            #expect(try Nested.V2.loadListFromFile().map(\.address.city) == ["Accra", "Kumasi"])
        }
    }

    @Test func newCodeKeepsARemovedFieldInTheRecordsItChanges() throws {
        try inTemporaryDirectory { _ in
            _ = try install("removed-v1", as: Removed.V2.self)
            try FileStore<Removed.V2>().update(Removed.V2(id: "a", title: "Buy bread"))
            #expect(try bytes(of: Removed.V2.self) == storedForm(edited("removed-v1", "Buy milk", "Buy bread")))
        }
    }

    /// Version 1 of a contact whose address may be missing.
    struct OptionalAddress: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var address: Nested.V1.Address?
        static var fileName: String { "contacts" }
    }

    @Test func aWriteThatWouldDropUnknownKeysThrowsAndWritesNothing() throws {
        try inTemporaryDirectory { directory in
            let new = try install("nested-v2", as: OptionalAddress.self)
            let error = persistenceError {
                try FileStore<OptionalAddress>().update(OptionalAddress(id: "b", address: nil))
            }
            #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[1].address.city"]))
            #expect(error?.description.contains("Nothing was written") == true)
            #expect(try bytes(of: OptionalAddress.self) == new)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func untouchedRecordsKeepTheirBytesWhateverTheirFormat() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: AddedField.V1.archiveDirectory, withIntermediateDirectories: true)
            let a = "{\"id\":\"a\",\"title\":\"x\",\"zz\":[1, {\"deep\":true}]}"
            try Data("[\(a),{\"id\":\"b\",\"title\":\"y\"}]".utf8).write(to: AddedField.V1.archiveUrl)
            try FileStore<AddedField.V1>().update(AddedField.V1(id: "b", title: "z"))
            let text = String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
            #expect(text == "[\n  \(a),\n  {\n    \"id\" : \"b\",\n    \"title\" : \"z\"\n  }\n]" + "\n")
        }
    }

    @Test func recordsAreFoundWhateverTheirStringsNumbersAndNestingHold() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: AddedField.V1.archiveDirectory, withIntermediateDirectories: true)
            let deep = String(repeating: "[{\"k\":", count: 80) + "null" + String(repeating: "}]", count: 80)
            let records = [
                #"{"id":"a","title":"quote \" brace } bracket ] comma , colon :","n":-0.5e+3}"#,
                #"{ "id" : "b" , "title" : "\u00e9\\\/\n\t", "deep" : \#(deep) }"#,
                #"{"t\u0069tle":"escaped key","id":"c","e":[],"o":{},"x":[true,false,null,0,1E2]}"#,
            ]
            let contents = Data(("[" + records.joined(separator: " ,\n") + "]").utf8)
            try contents.write(to: AddedField.V1.archiveUrl)
            let expected = try AddedField.V1.archiveDecoder.decode([AddedField.V1].self, from: contents)
            #expect(try AddedField.V1.salvageFile().values == expected)
            try FileStore<AddedField.V1>().update(AddedField.V1(id: "c", title: "changed"))
            let text = String(decoding: try bytes(of: AddedField.V1.self), as: UTF8.self)
            // Untouched neighbours are copied together, with what stood between them.
            #expect(text.hasPrefix("[\n  " + records[0] + " ,\n" + records[1] + ",\n  {"))
            #expect(text.contains(#""e" : []"#) && text.contains(#""x" : [true,false,null,0,1E2]"#))
            #expect(try AddedField.V1.loadListFromFile().map(\.title) == [expected[0].title, expected[1].title, "changed"])
        }
    }

    @Test func anUpdateEncodesOnlyTheRecordItChanges() throws {
        try inTemporaryDirectory { _ in
            let store = FileStore<CountedEncoding>()
            try store.insert(contentsOf: (0..<500).map { CountedEncoding(id: $0, name: "n\($0)") })
            for round in 0..<3 {
                CountedEncoding.encodes.reset()
                try store.update(CountedEncoding(id: 250, name: "changed \(round)"))
                // The changed record, and the value it held when read, to find keys its type does not know.
                #expect(CountedEncoding.encodes.value == 2)
            }
            CountedEncoding.encodes.reset()
            try store.delete(CountedEncoding(id: 3, name: ""))
            #expect(CountedEncoding.encodes.value == 0)
            CountedEncoding.clearArchiveCache()
            #expect(try store.all().count == 499)
            #expect(try store.all()[249].name == "changed 2")
        }
    }

    @Test func twoVersionsWritingOneFileAtOnceLoseNothing() throws {
        let directory = try TemporaryDirectory()
        let count = 40
        let old = try ChildProcess("VersionedWriter", ["v1", directory.path, "old", "\(count)"])
        let new = try ChildProcess("VersionedWriter", ["v2", directory.path, "new", "\(count)"])
        for child in [old, new] {
            let result = child.finish()
            #expect(result.status == 0, "\(result.errors)")
        }
        let records = try FileStore<TaskRecord>(url: directory.file("tasks.json")).all()
        #expect(Set(records.map(\.id)) == Set((0..<count).flatMap { ["old-\($0)", "new-\($0)"] }))
        // Every record version 2 wrote keeps its priority, whatever version 1 did to the file and to the record.
        for index in 0..<count {
            #expect(records.first { $0.id == "new-\(index)" }?.priority == index + 1)
        }
        #expect(records.filter { $0.id.hasPrefix("old") }.allSatisfy { $0.priority == 0 })
        #expect(try directory.temporaries().isEmpty)
    }

    /// A record that counts its encodings.
    struct CountedEncoding: Codable, Hashable, Identifiable, Persistible {
        static let encodes = Counter()
        var id: Int
        var name: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            Self.encodes.increment()
        }
    }

    /// The child's version 2, as the test reads the file.
    struct TaskRecord: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var priority: Int = 0
        static var archiveDefaults: TaskRecord? { TaskRecord(id: "", title: "") }
    }
}
