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
}
