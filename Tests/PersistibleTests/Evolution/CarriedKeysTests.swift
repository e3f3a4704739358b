import Foundation
import Persistible
import Testing

/// Keys a newer version wrote, carried over by an older version whose own encoding of the record is an empty object.
@Suite struct CarriedKeysTests {
    /// The older version: its one property is optional, so a value without it encodes as `{}`.
    struct SparseSettings: Codable, Hashable, Persistible {
        var theme: String?

        static var fileName: String { "sparse-settings" }
    }

    @Test func severalKeysCarriedIntoAnObjectLeftEmptyStayValidJSON() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(
                at: SparseSettings.archiveDirectory, withIntermediateDirectories: true
            )
            // As a newer version wrote it: two keys the older version does not know.
            try Data(#"{"fontSize":14,"language":"en","theme":"dark"}"#.utf8).write(to: SparseSettings.archiveUrl)

            try SparseSettings.update(default: SparseSettings()) { $0.theme = nil }

            let stored = try #require(
                try JSONSerialization.jsonObject(with: bytes(of: SparseSettings.self)) as? [String: Any]
            )
            #expect(stored["fontSize"] as? Int == 14)
            #expect(stored["language"] as? String == "en")
            #expect(stored["theme"] == nil)
            #expect(try SparseSettings.loadFromFile() == SparseSettings(theme: nil))
            #expect(try directory.temporaries().isEmpty)
        }
    }

    @Test func escapedKeysAreReadAsTheKeysTheySpell() throws {
        try inTemporaryDirectory { directory in
            try FileManager.default.createDirectory(
                at: SparseSettings.archiveDirectory, withIntermediateDirectories: true
            )
            // `theme` escaped is the key the type knows; a key escaped with a surrogate pair and a line break is not.
            let stored = #"{"f\ud83d\ude00\nx":"\u00e9","\u0074heme":"dark"}"#
            try Data(stored.utf8).write(to: SparseSettings.archiveUrl)

            try SparseSettings.update(default: SparseSettings()) { $0.theme = "light" }

            let object = try #require(
                try JSONSerialization.jsonObject(with: bytes(of: SparseSettings.self)) as? [String: Any]
            )
            #expect(object.keys.sorted() == ["f\u{1F600}\nx", "theme"])
            // The known key is written anew, not kept beside its new encoding as a key of its own.
            #expect(!String(decoding: try bytes(of: SparseSettings.self), as: UTF8.self).contains("u0074"))
            #expect(object["f\u{1F600}\nx"] as? String == "\u{e9}")
            #expect(try SparseSettings.loadFromFile() == SparseSettings(theme: "light"))
            #expect(try directory.temporaries().isEmpty)
        }
    }
}
