import Foundation
import Persistible
import Testing

/// Files written by earlier versions load with defaults and migrations, without being written; the next write
/// stores every record in the current format; what no version reads is reported as a version mismatch.
@Suite struct ModelEvolutionTests {
    // MARK: - Field added with a default

    @Test func aFieldAddedWithADefaultLoadsFromAnOldFileWithoutWritingIt() throws {
        try inTemporaryDirectory { directory in
            let old = try install("added-field-v1", as: AddedField.V2.self)
            let loaded = try AddedField.V2.loadListFromFile()
            #expect(loaded.map(\.priority) == [0, 0, 0])
            #expect(loaded.map(\.title) == ["Buy milk", "Call Amy", "Water plants"])
            #expect(try FileStore<AddedField.V2>().all() == loaded)
            #expect(try bytes(of: AddedField.V2.self) == old)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aKeyThatIsPresentIsNeverReplacedByItsDefault() throws {
        try inTemporaryDirectory { _ in
            _ = try install("added-field-mixed", as: AddedField.V2.self)
            #expect(try AddedField.V2.loadListFromFile().map(\.priority) == [2, 0])
        }
    }

    @Test func theNextSaveWritesEveryRecordInTheCurrentFormat() throws {
        try inTemporaryDirectory { _ in
            _ = try install("added-field-v1", as: AddedField.V2.self)
            let loaded = try AddedField.V2.loadListFromFile()
            let new = AddedField.V2(id: "d", title: "Read", priority: 1)
            try new.saveToFile()
            #expect(try bytes(of: AddedField.V2.self) == currentFormat(loaded + [new]))
        }
    }

    @Test func theNextStoreWriteWritesEveryRecordInTheCurrentFormat() throws {
        for operation in ["update", "delete", "synchronize", "insert"] {
            try inTemporaryDirectory { _ in
                _ = try install("added-field-v1", as: AddedField.V2.self)
                let store = FileStore<AddedField.V2>()
                var expected = try store.all()
                switch operation {
                case "update":
                    expected[1].priority = 9
                    try store.update(expected[1])
                case "delete":
                    try store.delete(expected.remove(at: 0))
                case "synchronize":
                    expected.removeLast()
                    try store.synchronize(with: expected)
                default:
                    expected.append(AddedField.V2(id: "d", title: "Read"))
                    try store.insert(expected[3])
                }
                #expect(try bytes(of: AddedField.V2.self) == currentFormat(expected), "\(operation)")
                #expect(try AddedField.V2.loadListFromFile() == expected)
            }
        }
    }

    @Test func defaultsFillNestedObjectsAtEveryDepth() throws {
        try inTemporaryDirectory { _ in
            let old = try install("nested-v1", as: Nested.V2.self)
            let loaded = try Nested.V2.loadListFromFile()
            #expect(loaded.map(\.address) == [.init(street: "1 High St", city: ""), .init(street: "2 Low Rd", city: "")])
            #expect(try bytes(of: Nested.V2.self) == old)
            _ = try install("nested-v2", as: Nested.V2.self)
            #expect(try Nested.V2.loadListFromFile().map(\.address.city) == ["Accra", "Kumasi"])
        }
    }

    @Test func aSingleValueFileIsFilledToo() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: AddedField.V2.archiveDirectory, withIntermediateDirectories: true)
            try Data("{\"id\" : \"a\", \"title\" : \"Alone\"}".utf8).write(to: AddedField.V2.archiveUrl)
            #expect(try AddedField.V2.loadFromFile() == AddedField.V2(id: "a", title: "Alone", priority: 0))
        }
    }

    // MARK: - Optional added

    @Test func anOptionalAddedLoadsFromAnOldFileAsNil() throws {
        try inTemporaryDirectory { _ in
            let old = try install("optional-added-v1", as: OptionalAdded.V2.self)
            #expect(try OptionalAdded.V2.loadListFromFile().map(\.note) == [nil, nil])
            #expect(try bytes(of: OptionalAdded.V2.self) == old)
            _ = try install("optional-added-v2", as: OptionalAdded.V1.self)
            #expect(try OptionalAdded.V1.loadListFromFile().map(\.title) == ["Buy milk", "Call Amy"])
        }
    }

    // MARK: - Field renamed, and a chain of versions

    @Test func aRenamedFieldIsReadThroughItsMigration() throws {
        try inTemporaryDirectory { _ in
            let old = try install("renamed-v1", as: Renamed.V2.self)
            #expect(try Renamed.V2.loadListFromFile().map(\.title) == ["Buy milk", "Call Amy"])
            #expect(try bytes(of: Renamed.V2.self) == old)
        }
    }

    @Test func aFileThatMixesThreeVersionsLoadsThroughAChainOfMigrations() throws {
        try inTemporaryDirectory { directory in
            let old = try install("renamed-mixed", as: Renamed.V3.self)
            let expected = [
                Renamed.V3(id: "a", title: "Buy milk", tags: []),
                Renamed.V3(id: "b", title: "Call Amy", tags: []),
                Renamed.V3(id: "c", title: "Water plants", tags: ["home"]),
            ]
            #expect(try Renamed.V3.loadListFromFile() == expected)
            #expect(try FileStore<Renamed.V3>().filter(where: \.title == "Call Amy").count() == 1)
            #expect(try bytes(of: Renamed.V3.self) == old)
            // Values equal to what the file gives still rewrite it, in the current format, when it holds old ones.
            try FileStore<Renamed.V3>().synchronize(with: expected + [Renamed.V3(id: "d", title: "New", tags: [])])
            #expect(try bytes(of: Renamed.V3.self)
                == currentFormat(expected + [Renamed.V3(id: "d", title: "New", tags: [])]))
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aRecordAppendedByAnOlderVersionIsMigratedWhenCaughtUp() throws {
        try inTemporaryDirectory { _ in
            let current = [Renamed.V2(id: "a", title: "Buy milk"), Renamed.V2(id: "b", title: "Call Amy")]
            try current.saveToFile()
            #expect(try Renamed.V2.loadListFromFile() == current)
            // An older version appends a record in its own format, as its splice would.
            var contents = try bytes(of: Renamed.V2.self)
            contents.removeLast(2)
            contents.append(Data(",\n  {\n    \"id\" : \"c\",\n    \"name\" : \"Old\"\n  }\n]".utf8))
            try contents.write(to: Renamed.V2.archiveUrl, options: .atomic)
            #expect(try Renamed.V2.loadListFromFile() == current + [Renamed.V2(id: "c", title: "Old")])
            // That record is stale: the next save rewrites it rather than splicing after it.
            try Renamed.V2(id: "d", title: "New").saveToFile()
            #expect(try bytes(of: Renamed.V2.self) == currentFormat(
                current + [Renamed.V2(id: "c", title: "Old"), Renamed.V2(id: "d", title: "New")]))
        }
    }

    // MARK: - Field removed

    @Test func aRemovedFieldIsIgnoredByNewCodeAndReportedToOldCode() throws {
        try inTemporaryDirectory { directory in
            _ = try install("removed-v1", as: Removed.V2.self)
            #expect(try Removed.V2.loadListFromFile().map(\.title) == ["Buy milk", "Call Amy"])

            let new = try install("removed-v2", as: Removed.V1.self)
            let error = persistenceError { _ = try Removed.V1.loadListFromFile() }
            #expect(error?.versionMismatch?.record == 0)
            #expect(error?.description.contains("'legacy'") == true)
            #expect(persistenceError { try Removed.V1(id: "c", title: "x", legacy: "y").saveToFile() } != nil)
            #expect(persistenceError { try FileStore<Removed.V1>().deleteAll() } != nil)
            #expect(try bytes(of: Removed.V1.self) == new)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    // MARK: - Type changed

    @Test func aChangedTypeIsConvertedByItsMigration() throws {
        try inTemporaryDirectory { _ in
            let old = try install("type-changed-v1", as: TypeChanged.V2.self)
            #expect(try TypeChanged.V2.loadListFromFile().map(\.estimate) == [3, 1])
            #expect(try bytes(of: TypeChanged.V2.self) == old)
            try FileStore<TypeChanged.V2>().update(TypeChanged.V2(id: "b", estimate: 2))
            #expect(try bytes(of: TypeChanged.V2.self)
                == currentFormat([TypeChanged.V2(id: "a", estimate: 3), TypeChanged.V2(id: "b", estimate: 2)]))
        }
    }

    @Test func oldCodeOnANewFileWithAChangedTypeThrowsAndWritesNothing() throws {
        try inTemporaryDirectory { directory in
            let new = try install("type-changed-v2", as: TypeChanged.V1.self)
            for operation in [
                { _ = try TypeChanged.V1.loadListFromFile() },
                { try TypeChanged.V1(id: "c", estimate: "2h").saveToFile() },
                { try FileStore<TypeChanged.V1>().update(TypeChanged.V1(id: "a", estimate: "1h")) },
                { try FileStore<TypeChanged.V1>().synchronize(with: []) },
            ] {
                let error = persistenceError(operation)
                #expect(error?.versionMismatch?.record == 0)
                guard case .unreadable(let codingPath, _)? = error?.reason else {
                    Issue.record("expected unreadable, got \(String(describing: error))")
                    continue
                }
                #expect(codingPath == "[0].estimate")
            }
            #expect(try bytes(of: TypeChanged.V1.self) == new)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func aMigrationThatThrowsIsReportedForItsRecordWhichWritesKeep() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: TypeChanged.V2.archiveDirectory, withIntermediateDirectories: true)
            let contents = Data("[{\"id\":\"a\",\"estimate\":\"3h\"},{\"id\":\"b\",\"estimate\":\"soon\"}]".utf8)
            try contents.write(to: TypeChanged.V2.archiveUrl)
            let error = persistenceError { _ = try TypeChanged.V2.loadListFromFile() }
            let mismatch = try #require(error?.versionMismatch)
            #expect(mismatch.record == 1)
            #expect(mismatch.attempts.map(\.typeName) == ["V2", String(reflecting: TypeChanged.V1.self)])
            #expect(mismatch.attempts[1].detail == "'soon' is not a number of hours")
            #expect(error?.description.contains("'soon' is not a number of hours") == true)
            // A save keeps the record, byte for byte, and the load still reports it.
            try TypeChanged.V2(id: "c", estimate: 1).saveToFile()
            #expect(String(decoding: try bytes(of: TypeChanged.V2.self), as: UTF8.self)
                .contains(#"{"id":"b","estimate":"soon"}"#))
            #expect(persistenceError { _ = try TypeChanged.V2.loadListFromFile() }?.versionMismatch?.record == 1)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    // MARK: - Enum case added, then downgraded

    @Test func oldCodeOnAFileWithAnUnknownEnumCaseNamesTheRecordAndCanSalvageTheRest() throws {
        try inTemporaryDirectory { directory in
            let new = try install("enum-v2", as: EnumCase.V1.self)
            let error = persistenceError { _ = try EnumCase.V1.loadListFromFile() }
            #expect(error?.versionMismatch?.record == 1)
            let description = try #require(error?.description)
            #expect(description.contains("record 1"))
            #expect(description.contains("archiveDefaults"))
            #expect(!description.contains("repair"))

            let salvaged = try EnumCase.V1.salvageFile()
            #expect(salvaged.values == [EnumCase.V1(id: "a", state: .open), EnumCase.V1(id: "c", state: .done)])
            #expect(salvaged.unreadable.map(\.index) == [1])
            #expect(salvaged.unreadable.first?.codingPath == "[1].state")
            let record = try #require(salvaged.unreadable.first?.bytes)
            #expect(String(decoding: record, as: UTF8.self)
                == "{\n    \"id\" : \"b\",\n    \"state\" : \"archived\"\n  }")
            #expect(try bytes(of: EnumCase.V1.self) == new)
            #expect(try directory.temporaries().isEmpty)

            // New code reads the same file.
            #expect(try EnumCase.V2.loadListFromFile().map(\.state) == [.open, .archived, .done])
        }
    }

    // MARK: - Damage and version mismatch

    @Test func aDamagedFileIsToldApartFromAnotherVersion() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: AddedField.V2.archiveDirectory, withIntermediateDirectories: true)
            let truncated = try fixture("added-field-v2").prefix(60)
            try truncated.write(to: AddedField.V2.archiveUrl)
            for type in [AddedField.V1.self, AddedField.V2.self] as [any (Persistible & Codable & Hashable).Type] {
                let error = persistenceError { _ = try type.loadListFromFile() }
                guard case .unreadable? = error?.reason else {
                    Issue.record("expected unreadable, got \(String(describing: error))")
                    continue
                }
                #expect(error?.versionMismatch == nil)
                #expect(error?.description.contains("repair") == true)
            }
            #expect(try bytes(of: AddedField.V2.self) == truncated)
        }
    }

    @Test func aRecordNoVersionReadsNamesWhatEachVersionSaid() throws {
        try inTemporaryDirectory { _ in
            try FileManager.default.createDirectory(at: Renamed.V3.archiveDirectory, withIntermediateDirectories: true)
            try Data("[{\"id\":\"a\",\"title\":\"ok\",\"tags\":[]},{\"id\":\"b\",\"label\":\"?\"}]".utf8)
                .write(to: Renamed.V3.archiveUrl)
            let error = persistenceError { _ = try Renamed.V3.loadListFromFile() }
            let mismatch = try #require(error?.versionMismatch)
            #expect(mismatch.record == 1)
            #expect(mismatch.attempts.map(\.typeName)
                == ["V3", String(reflecting: Renamed.V2.self), String(reflecting: Renamed.V1.self)])
            #expect(mismatch.attempts.map(\.detail) == [
                "No value for the key 'title'.", "No value for the key 'title'.", "No value for the key 'name'.",
            ])
            let description = try #require(error?.description)
            #expect(description.contains("record 1"))
            #expect(description.contains("'name'"))
        }
    }
}
