import Foundation
import Persistible
import Testing

/// Error descriptions read as English whatever the type's name and the count.
@Suite struct ErrorWordingTests {
    private let url = URL(fileURLWithPath: "/data/file.json")

    private func description(_ reason: PersistenceError.Reason, _ typeName: String) -> String {
        PersistenceError(reason, url: url, typeName: typeName).description
    }

    @Test(arguments: [("Item", "an Item"), ("Order", "an Order"), ("Person", "a Person"), ("Settings", "a Settings")])
    func aTypeNameTakesTheArticleOfItsFirstLetter(_ typeName: String, _ expected: String) {
        let text = description(.unreadable(codingPath: "", detail: "The file is empty."), typeName)
        #expect(text.contains("holds neither \(expected) nor an array of \(typeName) values"), "\(text)")
        #expect(!text.contains(" a \(typeName) ") || expected.hasPrefix("a "))
    }

    @Test(arguments: [(0, "0 values"), (1, "1 value,"), (2, "2 values")])
    func aCountReadsAsEnglish(_ count: Int, _ expected: String) {
        let text = description(.holdsArray(count: count), "Item")
        #expect(text.contains("holds an array of \(expected)"), "\(text)")
        #expect(text.contains("not a single Item"))
    }

    @Test func anEmptyArrayWhereOneValueIsExpectedSaysZeroValues() throws {
        try inTemporaryDirectory { _ in
            try [Item]().overwriteFile()
            let error = persistenceError { _ = try Item.loadFromFile() }
            #expect(error?.reason == .holdsArray(count: 0))
            #expect(error?.description.contains("holds an array of 0 values, not a single Item") == true)
        }
    }

    @Test func anUnreadableFileOfAVowelInitialTypeSaysAnItem() throws {
        try inTemporaryDirectory { _ in
            try Data("not json".utf8).write(to: Item.archiveUrl)
            let error = persistenceError { _ = try Item.loadListFromFile() }
            #expect(error?.description.contains("holds neither an Item nor an array of Item values") == true)
        }
    }

    @Test func noDescriptionPutsAOrAnBeforeAWordThatNeedsTheOther() {
        let reasons: [PersistenceError.Reason] = [
            .fileNotFound, .unreadable(codingPath: "[0]", detail: "Bad."), .holdsArray(count: 3),
            .invalidFileName("a/b"), .encodingFailed(detail: "Bad."), .readFailed(operation: "read", errno: EIO),
            .writeFailed(operation: "rename", errno: ENOSPC), .writeFailed(operation: "fsync directory", errno: EIO),
            .lockFailed(operation: "flock", errno: ENOLCK), .recordNotFound(identity: "7"),
        ]
        for typeName in ["Item", "Order", "Person", "Update"] {
            for reason in reasons {
                let words = description(reason, typeName).split(separator: " ")
                for (article, word) in zip(words, words.dropFirst()) where article == "a" || article == "an" {
                    let vowel = word.first.map { "AEIOUaeiou".contains($0) } ?? false
                    #expect(article == (vowel ? "an" : "a"), "'\(article) \(word)' in: \(description(reason, typeName))")
                }
            }
        }
    }
}
