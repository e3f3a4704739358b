import Foundation
import Testing

@testable import Persistible

/// A rewrite told that a record changed must be told what that record held when read, or it cannot carry over the
/// keys its type does not know; no public operation can leave it out, so this drives the rewrite directly.
@Suite struct RewriteSourcesTests {
    @Test func aChangedRecordWithoutItsValueAsReadThrowsRatherThanLoseItsUnknownKeys() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("tasks.json")
        try Data(#"[{"id":"a","priority":3,"title":"x"}]"#.utf8).write(to: url)
        let archive = Archive<AddedField.V1>(
            url: url, namedAfter: AddedField.V1.self, encoder: AddedField.V1.archiveEncoder, decoder: AddedField.V1.archiveDecoder,
            durability: .noSync, caches: false
        )
        let state = try #require(try archive.read())
        let changed = AddedField.V1(id: "a", title: "y")
        // Caught by hand: #expect(throws:) returns the error only from Swift 6.1 on.
        do {
            _ = try archive.rewriteKeepingUntouched(
                state, storedCount: 1, records: [changed], sources: [.changed(0)], originals: [:]
            )
            Issue.record("the rewrite dropped the record's unknown keys without an error")
        } catch {
            #expect(error.reason == .unknownKeysWouldBeLost(keyPaths: ["[0]"]))
        }
    }
}
