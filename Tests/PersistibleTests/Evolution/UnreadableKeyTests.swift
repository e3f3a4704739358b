import Foundation
import Persistible
import Testing

/// A stored key the decoder accepts without reading it, in an object no type knows, but that cannot be read as a
/// string (a lone UTF-16 surrogate): a write that changes its record cannot tell it apart from the keys the type
/// knows, so it throws rather than drop or misplace it.
@Suite struct UnreadableKeyTests {
    private func write<T: Persistible>(_ text: String, as type: T.Type) throws {
        try FileManager.default.createDirectory(at: T.archiveDirectory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: T.archiveUrl)
    }

    @Test func aRecordWithAKeyThatCannotBeReadThrowsRatherThanLoseIt() throws {
        try inTemporaryDirectory { directory in
            // A lone surrogate: the decoder never reads this key, as no type knows `extra`, so the file loads; but
            // the key cannot be told apart from the keys the type knows.
            try write(#"[{"extra":{"b\ud800":1},"id":"a","title":"x"}]"#, as: AddedField.V1.self)
            let stored = try bytes(of: AddedField.V1.self)
            #expect(try AddedField.V1.loadListFromFile() == [AddedField.V1(id: "a", title: "x")])
            let error = persistenceError {
                try FileStore<AddedField.V1>().update(AddedField.V1(id: "a", title: "y"))
            }
            #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0]"]))
            #expect(try bytes(of: AddedField.V1.self) == stored)
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func settingsWithAKeyThatCannotBeReadThrowRatherThanLoseIt() throws {
        try inTemporaryDirectory { directory in
            try write(#"{"extra":{"b\ud800":1},"volume":3}"#, as: RenamedSettings.V1.self)
            let stored = try bytes(of: RenamedSettings.V1.self)
            let error = persistenceError {
                try RenamedSettings.V1.update(default: RenamedSettings.V1(volume: 5)) { $0.volume = 4 }
            }
            #expect(error?.reason == .unknownKeysWouldBeLost(keyPaths: ["[0]"]))
            #expect(try bytes(of: RenamedSettings.V1.self) == stored)
            #expect(try directory.temporaries().isEmpty)
        }
    }
}
