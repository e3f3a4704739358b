import Foundation
import Persistible
import Testing

/// A settings file that lacks a key its type requires takes that key from the default value passed to
/// `loadFromFile(default:)` and `update(default:_:)`, at every depth, without the type declaring anything.
@Suite struct SettingsMissingKeyTests {
    struct Window: Codable, Hashable, Persistible {
        struct Frame: Codable, Hashable { var width: Int; var height: Int }
        var theme: String
        var fontSize: Int
        var frame: Frame
    }

    /// Declares `archiveDefaults`, which fill first: the value passed fills only what they leave missing.
    struct Declared: Codable, Hashable, Persistible {
        var theme: String
        var fontSize: Int
        var note: String?
        static var archiveDefaults: Declared? { Declared(theme: "system", fontSize: 10) }
    }

    /// An optional the decoder reads as `nil` when its key is missing.
    struct Noted: Codable, Hashable, Persistible {
        var fontSize: Int
        var note: String?
    }

    /// The article's example, as it stands in "Settings and Editing".
    struct Settings: Codable, Hashable, Persistible {
        var theme = "light"
        var fontSize = 12
        var showsToolbar = true    // new in version 2
    }

    private let fallback = Window(theme: "light", fontSize: 12, frame: .init(width: 640, height: 480))

    @Test func aLoadTakesTheMissingKeysFromTheDefaultAtEveryDepthAndWritesNothing() throws {
        try inTemporaryDirectory { _ in
            let stored = try install(
                json: #"{"theme":"dark","frame":{"width":800},"plugins":["spell"]}"#, as: Window.self
            )
            let loaded = try Window.loadFromFile(default: fallback)
            #expect(loaded == Window(theme: "dark", fontSize: 12, frame: .init(width: 800, height: 480)))
            #expect(try bytes(of: Window.self) == stored)
        }
    }

    @Test func anUpdateTakesTheMissingKeysAndKeepsTheUnknownOnes() throws {
        try inTemporaryDirectory { _ in
            try install(json: #"{"theme":"dark","frame":{"width":800},"plugins":["spell"]}"#, as: Window.self)
            let updated = try Window.update(default: fallback) { $0.fontSize += 1 }
            #expect(updated == Window(theme: "dark", fontSize: 13, frame: .init(width: 800, height: 480)))
            let object = try #require(
                try JSONSerialization.jsonObject(with: bytes(of: Window.self)) as? [String: Any]
            )
            #expect(object.keys.sorted() == ["fontSize", "frame", "plugins", "theme"])
            #expect(object["plugins"] as? [String] == ["spell"])
            #expect(try Window.loadFromFile() == updated)
        }
    }

    @Test func aKeyTheDecoderCanDoWithoutStaysMissing() throws {
        try inTemporaryDirectory { _ in
            try install(json: #"{}"#, as: Noted.self)
            #expect(try Noted.loadFromFile(default: Noted(fontSize: 12, note: "passed")) == Noted(fontSize: 12))
        }
    }

    @Test func theArticlesSettingsFromAnEarlierVersionLoad() throws {
        try inTemporaryDirectory { _ in
            // Written by version 1, which had no `showsToolbar`.
            try install(json: #"{"fontSize":16,"theme":"dark"}"#, as: Settings.self)
            let settings = try Settings.loadFromFile(default: Settings())   // showsToolbar: true, from Settings()
            #expect(settings == Settings(theme: "dark", fontSize: 16, showsToolbar: true))
        }
    }

    @Test func declaredDefaultsKeepTheirMeaning() throws {
        try inTemporaryDirectory { _ in
            let stored = try install(json: #"{"theme":"dark"}"#, as: Declared.self)
            let passed = Declared(theme: "light", fontSize: 20, note: "passed")
            #expect(try Declared.loadFromFile(default: passed) == Declared(theme: "dark", fontSize: 10))
            #expect(try bytes(of: Declared.self) == stored)
        }
    }

    @Test func aDamagedOrMismatchedFileStillThrowsAndIsKept() throws {
        for text in [#"{"theme":"dark","#, #"{"theme":"dark","fontSize":"big"}"#] {
            try inTemporaryDirectory { _ in
                let stored = try install(json: text, as: Window.self)
                let error = persistenceError { _ = try Window.loadFromFile(default: fallback) }
                guard case .unreadable = error?.reason else {
                    Issue.record("\(text): \(String(describing: error))")
                    return
                }
                #expect(persistenceError { try Window.update(default: fallback) { $0.fontSize += 1 } } != nil)
                #expect(try bytes(of: Window.self) == stored)
            }
        }
    }
}
