import Foundation
import Persistible
import Testing

/// Records that needed a default keep what a newer version wrote: an older version whose `archiveDefaults` fill a
/// key that a newer version renamed keeps the new name in every record, on appends and on changes, while the
/// next write stores those records in the current format.
@Suite struct DefaultFilledRecordTests {
    /// The text of the file as the v3 fixture's records look once written by `AddedField.V2`: the filled `title`
    /// added, every stored key, `name` included, kept with its bytes.
    private let rewritten = """
        [
          {
            "id" : "a",
            "name" : "Buy milk",
            "priority" : 2,
            "title" : ""
          },
          {
            "id" : "b",
            "name" : "Call Amy",
            "priority" : 0,
            "title" : ""
          }
        """

    /// Each record of the file as JSON objects, read without any of the test types.
    private func objects<T: Persistible>(of type: T.Type) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: bytes(of: type)) as? [[String: Any]])
    }

    private func text<T: Persistible>(of type: T.Type) throws -> String {
        String(decoding: try bytes(of: type), as: UTF8.self)
    }

    @Test func savingOneMoreRecordKeepsEveryStoredRecordsNewerKey() throws {
        try inTemporaryDirectory { directory in
            _ = try install("defaults-renamed-v3", as: AddedField.V2.self)
            #expect(try AddedField.V2.loadListFromFile().map(\.title) == ["", ""])
            try AddedField.V2(id: "c", title: "Read", priority: 1).saveToFile()
            #expect(try text(of: AddedField.V2.self).hasPrefix(rewritten + ",\n"))
            #expect(try objects(of: AddedField.V2.self).map { $0["name"] as? String } == ["Buy milk", "Call Amy", nil])
            #expect(try AddedField.V2.loadListFromFile().map(\.id) == ["a", "b", "c"])
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func insertingIntoAStoreKeepsEveryStoredRecordsNewerKey() throws {
        try inTemporaryDirectory { _ in
            _ = try install("defaults-renamed-v3", as: AddedField.V2.self)
            try FileStore<AddedField.V2>().insert(AddedField.V2(id: "c", title: "Read", priority: 1))
            #expect(try text(of: AddedField.V2.self).hasPrefix(rewritten + ",\n"))
            #expect(try objects(of: AddedField.V2.self).map { $0["name"] as? String } == ["Buy milk", "Call Amy", nil])
        }
    }

    @Test func updatingOneRecordKeepsTheNewerKeyOfEveryRecord() throws {
        try inTemporaryDirectory { _ in
            _ = try install("defaults-renamed-v3", as: AddedField.V2.self)
            try FileStore<AddedField.V2>().update(AddedField.V2(id: "b", title: "Call Amy back", priority: 7))
            let expected = rewritten
                .replacingOccurrences(of: "\"priority\" : 0,\n    \"title\" : \"\"",
                                      with: "\"priority\" : 7,\n    \"title\" : \"Call Amy back\"")
            #expect(try text(of: AddedField.V2.self) == expected + "\n]" + "\n")
        }
    }

    @Test func updatingSettingsThatNeededADefaultKeepsTheirNewerKey() throws {
        try inTemporaryDirectory { _ in
            _ = try install("settings-v2", as: RenamedSettings.V1WithDefaults.self)
            let fallback = RenamedSettings.V1WithDefaults(theme: "light", volume: 5)
            try RenamedSettings.V1WithDefaults.update(default: fallback) { $0.volume = 4 }
            let settings = try RenamedSettings.V2.loadFromFile()
            #expect(settings == RenamedSettings.V2(colorScheme: "dark", volume: 4))
        }
    }

    @Test func updatingSettingsOfATypeWithoutIdentityKeepsTheirNewerKey() throws {
        try inTemporaryDirectory { _ in
            _ = try install("settings-v2", as: RenamedSettings.V1.self)
            try RenamedSettings.V1.update(default: RenamedSettings.V1(volume: 5)) { $0.volume = 4 }
            #expect(try RenamedSettings.V2.loadFromFile() == RenamedSettings.V2(colorScheme: "dark", volume: 4))
        }
    }

    @Test func overwritingSettingsOfATypeWithoutIdentityKeepsTheirNewerKey() throws {
        try inTemporaryDirectory { _ in
            _ = try install("settings-v2", as: RenamedSettings.V1.self)
            try RenamedSettings.V1(volume: 9).overwriteFile()
            #expect(try RenamedSettings.V2.loadFromFile() == RenamedSettings.V2(colorScheme: "dark", volume: 9))
        }
    }
}
