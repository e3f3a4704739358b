import Foundation
import Persistible
import Testing

/// Error descriptions read as English whatever the type's name and the count.
@Suite struct ErrorWordingTests {
    private let url = URL(fileURLWithPath: "/data/file.json")

    private func description(_ reason: PersistenceError.Reason, _ typeName: String) -> String {
        PersistenceError(reason, url: url, typeName: typeName).description
    }

    /// The article each name takes by the documented rule, the misses it owns up to included ("a Hour").
    static let articles = [
        ("Item", "an"), ("Order", "an"), ("Person", "a"), ("Settings", "a"), ("User", "a"), ("Unit", "a"),
        ("Usage", "a"), ("Umbrella", "an"), ("Update", "an"), ("Unused", "an"), ("EuropeanPlug", "a"),
        ("OneTimeCode", "a"), ("URLRecord", "a"), ("HTTPRequest", "an"), ("SKU", "an"), ("Hour", "a"),
    ]

    @Test(arguments: articles)
    func aTypeNameTakesTheArticleOfItsFirstSound(_ typeName: String, _ article: String) {
        let text = description(.unreadable(codingPath: "", detail: "The file is empty."), typeName)
        #expect(text.contains("holds neither \(article) \(typeName) nor an array of \(typeName) values"), "\(text)")
        let tooLarge = description(.fileTooLarge(size: 2, limit: 1), typeName)
        #expect(tooLarge.contains("bytes \(article) \(typeName) file may hold"), "\(tooLarge)")
        let wouldBeTooLarge = description(.writeTooLarge(size: 2, limit: 1), typeName)
        #expect(wouldBeTooLarge.contains("bytes \(article) \(typeName) file may hold"), "\(wouldBeTooLarge)")
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

    static let reasons: [PersistenceError.Reason] = [
        .fileNotFound, .unreadable(codingPath: "[0]", detail: "Bad."), .holdsArray(count: 3),
        .invalidFileName("a/b"), .encodingFailed(detail: "Bad."), .readFailed(operation: "read", errno: EIO),
        .writeFailed(operation: "rename", errno: ENOSPC), .writeFailed(operation: "fsync directory", errno: EIO),
        .lockFailed(operation: "flock", errno: ENOLCK), .recordNotFound(identity: "7"),
        .unknownKeysWouldBeLost(keyPaths: ["[0].name"]), .fileTooLarge(size: 2, limit: 1),
        .writeTooLarge(size: 2, limit: 1),
        .fileNameTooLong(name: "n", limit: 1), .lockHeld(processID: 7), .lockHeld(processID: nil),
        .linkNotFollowed(link: "/tmp/file.json", owner: 65534),
        .inTheWay(path: "/data/file.json.lock", owner: 65534),
    ]

    @Test func noDescriptionPutsAOrAnBeforeAWordThatNeedsTheOther() {
        for (typeName, expected) in Self.articles {
            for reason in Self.reasons {
                let words = description(reason, typeName).split(separator: " ")
                for (article, word) in zip(words, words.dropFirst()) where article == "a" || article == "an" {
                    let vowel = word.first.map { "AEIOUaeiou".contains($0) } ?? false
                    let right = word.hasPrefix(typeName) ? expected : (vowel ? "an" : "a")
                    #expect(article == right, "'\(article) \(word)' in: \(description(reason, typeName))")
                }
            }
        }
    }

    /// A command-line tool prints `localizedDescription` to its user: what happened, with no advice that only the
    /// developer can follow; that is the recovery suggestion, which the description adds.
    @Test(arguments: reasons)
    func whatHappenedIsToldApartFromWhatTheDeveloperShouldDo(_ reason: PersistenceError.Reason) {
        for versionMismatch in [nil, VersionMismatch(record: 1, attempts: [])] {
            let error = PersistenceError(reason, url: url, typeName: "Item", versionMismatch: versionMismatch)
            let told = error.localizedDescription
            #expect(told == error.errorDescription)
            for developerWord in ["()", "archiveDefaults", "archiveMigrations", "overwriteFile", "insert it"] {
                #expect(!told.contains(developerWord), "\(told)")
            }
            #expect(told.hasSuffix("."), "\(told)")
            #expect(error.description == [told, error.recoverySuggestion].compactMap { $0 }.joined(separator: " "))
        }
    }

    @Test func anUnknownEnumCaseSaysWhatToDoOnlyInTheSuggestionAndEndsItsSentences() throws {
        try inTemporaryDirectory { _ in
            try Data(#"[{"state":"open"},{"state":"archived"}]"#.utf8).write(to: Ticket.archiveUrl)
            let error = try #require(persistenceError { _ = try Ticket.loadListFromFile() })
            #expect(!error.localizedDescription.contains("archiveDefaults"), "\(error.localizedDescription)")
            #expect(error.recoverySuggestion?.contains("archiveMigrations") == true)
            #expect(error.localizedDescription.contains("record 1"))
            // The decoder's message for the case ends without a full stop; the sentence after it must not run on.
            #expect(error.description.contains("archived."), "\(error.description)")
            #expect(!error.description.contains("archived It"), "\(error.description)")
        }
    }

    /// A file that any decoder with the 128-bit integers reads is neither damaged nor another version's.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func aTypeTheDecoderCannotReadIsBlamedOnTheDecoderNotOnAnotherVersion() throws {
        try inTemporaryDirectory { _ in
            let cases: [(stored: String, codingPath: String, load: () throws -> Void)] = [
                ("[5]", "[0]", { _ = try Ledger.loadListFromFile() }), ("5", "", { _ = try Ledger.loadFromFile() }),
            ]
            for (stored, codingPath, load) in cases {
                try Data(stored.utf8).write(to: Ledger.archiveUrl)
                let error = try #require(persistenceError(load))
                let detail = "Decoder has not implemented support for Int128"
                #expect(error.reason == .unreadable(codingPath: codingPath, detail: detail))
                #expect(error.versionMismatch == nil)
                #expect(!error.description.contains("version"), "\(error.description)")
                #expect(error.localizedDescription.contains("the decoder in use does not read Int128 values"))
                #expect(error.recoverySuggestion?.contains("repair") == false)
                #expect(try Data(contentsOf: Ledger.archiveUrl) == Data(stored.utf8))
            }
        }
    }

    @Test func aLockHeldTooLongSaysWriteNotSaveForEveryOperation() {
        let text = description(.lockHeld(processID: 42), "Item")
        #expect(text.hasPrefix("Couldn't write '/data/file.json': process 42 held its lock"), "\(text)")
        #expect(!text.contains("save"), "a delete or a move aside waits for the same lock: \(text)")
    }
}

/// A ticket whose state a later version may extend with a case this one does not know.
private struct Ticket: Codable, Hashable, Persistible {
    enum State: String, Codable { case open, closed }
    var state: State
}

/// A ledger that reads its total through a container without the 128-bit methods, as a decoder written before them
/// does: the standard library's default for the method refuses the value.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private struct Ledger: Codable, Hashable, Persistible {
    var total: Int128

    init(total: Int128) {
        self.total = total
    }

    init(from decoder: any Decoder) throws {
        total = try ContainerWithoutWideIntegers(base: decoder.singleValueContainer()).decode(Int128.self)
    }

    struct ContainerWithoutWideIntegers: SingleValueDecodingContainer {
        let base: any SingleValueDecodingContainer
        var codingPath: [any CodingKey] { base.codingPath }
        func decodeNil() -> Bool { base.decodeNil() }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try base.decode(type) }
    }
}
