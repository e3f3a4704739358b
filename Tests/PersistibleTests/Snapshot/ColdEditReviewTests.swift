import Foundation
import Testing

@testable import Persistible

/// The cold edit and the cold removal by identity (a type that caches nothing, and a caching type whose snapshot is
/// the undecoded one a cold write leaves), each compared with the same steps run on decoded records (a caching type
/// with the same file that loaded it first): what each step returns or throws, the bytes it leaves, that a step that
/// throws leaves the file as it was and no temporary, and what the file then loads to.
@Suite struct ColdEditReviewTests {
    // MARK: - Types sharing one file

    struct ColdInt: EditedRecord {
        var id: Int
        var name: String
        static var fileName: String { "edited" }
        static var cachesArchive: Bool { false }
    }

    struct WarmInt: EditedRecord {
        var id: Int
        var name: String
        static var fileName: String { "edited" }
    }

    struct ColdString: EditedRecord {
        var id: String
        var name: String
        static var fileName: String { "edited" }
        static var cachesArchive: Bool { false }
    }

    struct WarmString: EditedRecord {
        var id: String
        var name: String
        static var fileName: String { "edited" }
    }

    // MARK: - Files

    static let intFiles: [String] = [
        // Written by the package, with unknown keys, nested too.
        """
        [
          {
            "extra" : {
              "id" : 1,
              "nested" : [1, {"id" : 9}]
            },
            "id" : 1,
            "name" : "a"
          },
          {
            "id" : 2,
            "name" : "b"
          },
          {
            "id" : 3,
            "more" : true,
            "name" : "c"
          }
        ]
        """,
        // Identities stored twice and three times.
        #"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 1, "name": "c", "x": 1}, {"id": 3, "name": "d"}]"#,
        #"[{"id": 1, "name": "a"}, {"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 1, "name": "z"}]"#,
        // Negative and zero identities; one stored as 1.0.
        #"[{"id": -1, "name": "a"}, {"id": 0, "name": "b"}, {"id": -20, "name": "c"}, {"id": 3, "name": "d"}]"#,
        #"[{"id": 1.0, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]"#,
        // The identity in another member too, the last records included.
        #"[{"id": 1, "name": "a", "parent": 2}, {"id": 2, "name": "b", "copy": 2}, {"id": 3, "name": "c", "o": 3}]"#,
        // Compact, CRLF, a byte order mark, a trailing comma. (Files no load reads, whose records the decoded path
        // never holds, are in the single cases below.)
        #"[{"id":1,"name":"a"},{"id":2,"name":"b","u":{"v":[]}},{"id":3,"name":"c"}]"#,
        "[{\"id\": 1, \"name\": \"a\"},\r\n{\"id\": 2, \"name\": \"b\"},\r\n{\"id\": 3, \"name\": \"c\"}\r\n]\r\n",
        "\u{FEFF}[{\"id\": 1, \"name\": \"a\"}, {\"id\": 2, \"name\": \"b\"}, {\"id\": 3, \"name\": \"c\"}]",
        #"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"},]"#,
        // Empty, one record, a single value.
        #"[]"#,
        #"[{"id": 1, "name": "a", "u": {"id": 1}}]"#,
        #"{"id": 1, "name": "a"}"#,
        // Many records, the package's format.
        "[\n" + (1...40).map { "  {\n    \"id\" : \($0),\n    \"name\" : \"n\($0)\"\n  }" }.joined(separator: ",\n") + "\n]\n",
    ]

    static let intSteps: [[Step<Int>]] = [
        [.save([(1, "A")])],
        [.save([(3, "C")])],
        [.remove(1)],
        [.remove(3)],
        [.remove(2)],
        [.remove(42)],
        [.save([(2, "b")])],
        [.save([(1, "x"), (1, "b")])],
        [.save([(2, "y"), (2, "z"), (5, "n"), (5, "m")])],
        [.save([(1, "A")]), .remove(2), .save([(3, "C")]), .save([(9, "new")]), .remove(9), .remove(1), .save([(1, "back")])],
        [.remove(1), .remove(2), .remove(3), .remove(-1), .remove(0), .remove(-20), .save([(7, "after")])],
        [.remove(3), .remove(3), .save([(3, "again")]), .save([(3, "again")])],
        [.save((10..<25).map { ($0, "new") } + [(1, "edited")])],
        [.save((10..<26).map { ($0, "new") } + [(1, "edited")])],
        [.save([(40, "last"), (1, "first")]), .remove(20), .save([(21, "mid")]), .remove(40)],
    ]

    @Test func coldEditsAndRemovalsOfIntegerIdentitiesAgree() throws {
        for file in Self.intFiles {
            for steps in Self.intSteps {
                try expectStepsAgree(cold: ColdInt.self, warm: WarmInt.self, file: file, steps: steps)
            }
        }
    }

    static let stringFiles: [String] = [
        #"[{"id": "a\/b", "name": "1"}, {"id": "caf\u00e9", "name": "2"}, {"id": "x", "name": "3"}]"#,
        #"[{"id": "café", "name": "1"}, {"id": "q\"uote", "name": "2"}, {"id": "x", "name": "3"}]"#,
        #"[{"id": "", "name": "1"}, {"id": "A", "name": "2"}, {"id": "a", "name": "3"}, {"id": "x", "name": "4"}]"#,
        #"[{"id": "x", "name": "1"}, {"id": "y", "name": "2", "z": {"id": "x"}}, {"id": "x", "name": "3"}]"#,
        #"[{"id": "\u0078", "name": "1"}, {"id": "y", "name": "2"}, {"id": "x", "name": "3"}]"#,
        #"[{"id": "1", "name": "1"}, {"id": "y", "name": "2"}]"#,
    ]

    static let stringSteps: [[Step<String>]] = [
        [.save([("x", "X")])],
        [.remove("x")],
        [.save([("a/b", "N")])],
        [.remove("a/b")],
        [.save([("café", "N")])],
        [.remove("café")],
        [.remove("q\"uote")],
        [.save([("", "E")]), .remove("A"), .save([("a", "low")])],
        [.remove("y"), .save([("y", "back")]), .remove("x")],
        [.remove("1"), .save([("1", "one")])],
    ]

    @Test func coldEditsAndRemovalsOfStringIdentitiesAgree() throws {
        for file in Self.stringFiles {
            for steps in Self.stringSteps {
                try expectStepsAgree(cold: ColdString.self, warm: WarmString.self, file: file, steps: steps)
            }
        }
    }

    // MARK: - Single cases

    /// The removal of every record of a file, one at a time, by a caching type that keeps the undecoded snapshot:
    /// the last removal leaves an empty array, and a save after it a file of one record.
    @Test func removingEveryRecordColdLeavesAnEmptyArray() throws {
        try inTemporaryDirectory { directory in
            try Data(#"[{"id": 1, "name": "a"}, {"id": 2, "name": "b", "u": 1}]"#.utf8).write(to: WarmInt.archiveUrl)
            WarmInt.clearArchiveCache()
            #expect(try WarmInt(id: 2, name: "").removeFromFile())
            #expect(try WarmInt(id: 1, name: "").removeFromFile())
            #expect(try String(contentsOf: WarmInt.archiveUrl, encoding: .utf8) == "[]\n")
            #expect(!(try WarmInt(id: 1, name: "").removeFromFile()))
            #expect(try WarmInt(id: 3, name: "c").saveToFile())
            WarmInt.clearArchiveCache()
            #expect(try WarmInt.loadListFromFile() == [WarmInt(id: 3, name: "c")])
            #expect(try directory.temporaries().isEmpty)
        }
    }

    /// Files no load reads: trailing bytes after the array, a record in the middle or at the end of another version.
    /// The decoded path throws for all; the cold path throws where it must decode such a record, and where the file
    /// is not one JSON array, but copies a record it need not decode (<doc:Guarantees>: "copy every other record as
    /// stored"), and never changes the file when it throws.
    @Test func filesNoLoadReadsColdAndUncached() throws {
        func steps(_ file: String, _ steps: [Step<Int>]) throws -> [String] {
            try run(ColdInt.self, file: file, steps: steps, loadFirst: false, clearing: false,
                sourceLocation: #_sourceLocation)
                .filter { !$0.hasPrefix("bytes") }
                .map { $0.hasPrefix("threw") ? "threw" : $0 }
        }
        let garbage = #"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}] x"#
        #expect(try steps(garbage, [.save([(1, "A")]), .remove(2), .remove(5), .save([(5, "e")])])
            == ["threw", "threw", "threw", "threw", "load threw"])
        let middle = #"[{"id": 1, "name": "a"}, {"id": 2, "title": "b"}, {"id": 3, "name": "c"}]"#
        #expect(try steps(middle, [.save([(1, "A")]), .remove(2), .remove(3), .save([(4, "d")])])
            == ["saved true", "threw", "removed true", "saved true", "load threw"])
        let last = #"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "title": "c"}]"#
        #expect(try steps(last, [.save([(1, "A")]), .remove(3), .remove(2), .remove(1), .save([(4, "d")])])
            == ["saved true", "threw", "removed true", "removed true", "threw", "load threw"])
    }

    /// Once cold removals leave only a record of another version, a caching type that never loaded answers as a
    /// call without a snapshot (a command-line call) does: a removal does not keep the identities it read, since
    /// the record whose decoding showed where they are stored may be gone, so the next write throws as the decoded
    /// path does.
    @Test func theUndecodedSnapshotOutlivesTheLastRecordThatDecodes() throws {
        let file = #"[{"id": 1, "name": "a"}, {"id": 2, "title": "b"}, {"id": 3, "name": "c"}]"#
        func check<T: EditedRecord>(_: T.Type) throws -> [String] where T.ID == Int {
            try run(T.self, file: file, steps: [.remove(1), .remove(3), .remove(4), .save([(4, "d")])],
                loadFirst: false, clearing: false, sourceLocation: #_sourceLocation)
                .filter { !$0.hasPrefix("bytes") }
                .map { $0.hasPrefix("threw") ? "threw" : $0 }
        }
        #expect(try check(ColdInt.self) == ["removed true", "removed true", "threw", "threw", "load threw"])
        #expect(try check(WarmInt.self) == ["removed true", "removed true", "threw", "threw", "load threw"])
    }

    /// A save whose values end where the record was (an edit undone within one array): the cold path writes
    /// nothing, the decoded path rewrites the file with the same records (here adding the final newline the file
    /// lacked). Both return 1 and load alike.
    @Test func anEditUndoneWithinOneSaveWritesNothingCold() throws {
        let file = #"[{"id":1,"name":"a"},{"id":2,"name":"b"}]"#
        let outcomes = try [true, false].map { loadFirst in
            try run(WarmInt.self, file: file, steps: [.save([(1, "x"), (1, "a")])], loadFirst: loadFirst,
                clearing: false, sourceLocation: #_sourceLocation)
        }
        #expect(outcomes[0][0] == "saved 1")
        #expect(outcomes[1][0] == "saved 1")
        #expect(outcomes[1][1] == "bytes: " + file)
        #expect(outcomes[0][1] == "bytes: [\n  {\"id\":1,\"name\":\"a\"},{\"id\":2,\"name\":\"b\"}\n]\n")
        #expect(outcomes[0][2] == outcomes[1][2])
    }

    /// An identity stored several times, the first copy equal to the value saved: the cold path and the decoded
    /// path both refuse it, and leave the file as it was.
    @Test func aRepeatedIdentityIsRefusedColdAndDecoded() throws {
        let file = #"[{"id": 2, "name": "b", "k": [1]}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}, {"id": 2, "name": "q"}]"#
        let outcomes = try [true, false].map { loadFirst in
            try run(WarmInt.self, file: file, steps: [.save([(2, "b")])], loadFirst: loadFirst, clearing: false,
                sourceLocation: #_sourceLocation)
        }
        for outcome in outcomes {
            #expect(outcome[0].hasPrefix("threw") && outcome[0].contains("records 0, 1, 3"))
            #expect(outcome[1] == "bytes: " + file)
        }
        #expect(outcomes[0][2] == outcomes[1][2])
    }

    /// A type whose `Int8` identity a record stores out of range: that record is no candidate, so a cold edit or
    /// removal of another identity copies it and succeeds, where the decoded path cannot load the file.
    struct Small: Codable, Hashable, Identifiable, Persistible {
        var id: Int8
        var name: String
        static var cachesArchive: Bool { false }
    }

    @Test func aColdEditCopiesARecordItNeedNotDecode() throws {
        try inTemporaryDirectory { _ in
            let file = #"[{"id": 300, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]"#
            try Data(file.utf8).write(to: Small.archiveUrl)
            #expect(persistenceError { _ = try Small.loadListFromFile() } != nil)
            #expect(try Small(id: 2, name: "B").saveToFile())
            #expect(try Small(id: 3, name: "").removeFromFile())
            let stored = try String(contentsOf: Small.archiveUrl, encoding: .utf8)
            #expect(stored.hasPrefix(#"[{"id": 300, "name": "a"}, {"#) || stored.contains(#"{"id": 300, "name": "a"}"#))
            #expect(!stored.contains(#""id": 3,"#))
        }
    }

    /// A record whose unknown keys have no place in the edited value (an optional object saved as `nil`): the cold
    /// edit throws what the decoded one throws and leaves the file as it was.
    struct Nested: Codable, Hashable { var x: Int }
    struct ColdSub: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var sub: Nested?
        static var fileName: String { "sub" }
        static var cachesArchive: Bool { false }
    }
    struct WarmSub: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var sub: Nested?
        static var fileName: String { "sub" }
    }

    @Test func anEditThatWouldLoseUnknownKeysThrowsColdAsDecoded() throws {
        let file = #"[{"id": 1, "sub": {"x": 1, "y": 2}}, {"id": 2, "sub": {"x": 3}}]"#
        let outcomes = try [true, false].map { warm in
            try inTemporaryDirectory { directory in
                try Data(file.utf8).write(to: WarmSub.archiveUrl)
                WarmSub.clearArchiveCache()
                if warm { _ = try WarmSub.loadListFromFile() }
                let error = persistenceError {
                    if warm { _ = try WarmSub(id: 1, sub: nil).saveToFile() } else { _ = try ColdSub(id: 1, sub: nil).saveToFile() }
                }
                #expect(try String(contentsOf: WarmSub.archiveUrl, encoding: .utf8) == file)
                #expect(try directory.temporaries().isEmpty)
                let edited = warm ? try WarmSub(id: 1, sub: Nested(x: 5)).saveToFile() : try ColdSub(id: 1, sub: Nested(x: 5)).saveToFile()
                return ("\(error.map { "\($0.reason)" } ?? "none")", edited, try String(contentsOf: WarmSub.archiveUrl, encoding: .utf8))
            }
        }
        #expect(outcomes[0].0 != "none")
        #expect(outcomes[0].0 == outcomes[1].0)
        #expect(outcomes[0].1 == outcomes[1].1)
        #expect(outcomes[0].2 == outcomes[1].2)
        #expect(outcomes[1].2.contains(#""y" : 2"#) || outcomes[1].2.contains(#""y": 2"#))
    }

    /// Edits and removals at once from several threads, cold and on the undecoded snapshot: every identity ends with
    /// the last value saved for it, removed ones gone, no record lost.
    @Test func concurrentColdEditsAndRemovalsLoseNothing() throws {
        try inTemporaryDirectory { directory in
            let url = directory.url
            try (0..<64).map { WarmInt(id: $0, name: "first") }.saveToFile()
            WarmInt.clearArchiveCache()
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                withArchiveDirectory(url) {
                    for round in 0..<8 {
                        let id = thread * 16 + round
                        #expect(throws: Never.self) {
                            if thread % 2 == 0 {
                                try ColdInt(id: id, name: "edited").saveToFile()
                                try ColdInt(id: id + 8, name: "").removeFromFile()
                            } else {
                                if round % 3 == 0 { WarmInt.clearArchiveCache() }
                                try WarmInt(id: id, name: "edited").saveToFile()
                                try WarmInt(id: id + 8, name: "").removeFromFile()
                            }
                        }
                    }
                }
            }
            WarmInt.clearArchiveCache()
            let loaded = try WarmInt.loadListFromFile()
            let expected = (0..<4).flatMap { thread in (0..<8).map { WarmInt(id: thread * 16 + $0, name: "edited") } }
            #expect(loaded == expected)
            #expect(try directory.temporaries().isEmpty)
        }
    }
}

// MARK: - Comparing

protocol EditedRecord: Codable, Hashable, Identifiable, Persistible where ID: Codable & Sendable {
    init(id: ID, name: String)
    var name: String { get }
}

enum Step<ID: Hashable & Sendable> {
    case save([(ID, String)])
    case remove(ID)
}

/// Runs `steps` on a file holding `file` and describes each one's outcome, the bytes it leaves, and what the file
/// then loads to; a step that throws must leave the file as it was, and none may leave a temporary.
private func run<T: EditedRecord>(
    _ type: T.Type, file: String, steps: [Step<T.ID>], loadFirst: Bool, clearing: Bool,
    sourceLocation: SourceLocation
) throws -> [String] {
    try inTemporaryDirectory { directory in
        try Data(file.utf8).write(to: T.archiveUrl)
        T.clearArchiveCache()
        var lines: [String] = []
        if loadFirst {
            #expect(throws: Never.self, "the decoded path needs a file that loads", sourceLocation: sourceLocation) {
                _ = try T.loadListFromFile()
            }
        }
        for step in steps {
            if clearing { T.clearArchiveCache() }
            let before = try Data(contentsOf: T.archiveUrl)
            let result: String
            do {
                switch step {
                case .save(let values):
                    let records = values.map { T(id: $0.0, name: $0.1) }
                    result = records.count == 1
                        ? "saved \(try records[0].saveToFile())" : "saved \(try records.saveToFile())"
                case .remove(let id):
                    result = "removed \(try T(id: id, name: "").removeFromFile())"
                }
            } catch {
                result = "threw " + "\(error)".replacing(/persistible-test\.\w+/, with: "DIRECTORY")
                    .replacing(String(describing: T.self), with: "T")
                let after = try Data(contentsOf: T.archiveUrl)
                #expect(after == before, "a step that threw changed the file", sourceLocation: sourceLocation)
            }
            #expect(try directory.temporaries().isEmpty, sourceLocation: sourceLocation)
            lines.append(result)
            lines.append("bytes: " + String(decoding: try Data(contentsOf: T.archiveUrl), as: UTF8.self))
        }
        T.clearArchiveCache()
        do {
            lines.append("loads: \(try T.loadListFromFile().map { "\($0.id)=\($0.name)" })")
        } catch {
            lines.append("load threw")
        }
        return lines
    }
}

/// Expects the steps, run cold (a type that caches nothing; a caching type that never loaded, which reuses the
/// undecoded snapshot its writes leave), to give what they give on decoded records.
private func expectStepsAgree<Cold: EditedRecord, Warm: EditedRecord>(
    cold: Cold.Type, warm: Warm.Type, file: String, steps: [Step<Cold.ID>],
    sourceLocation: SourceLocation = #_sourceLocation
) throws where Cold.ID == Warm.ID {
    let decoded = try run(Warm.self, file: file, steps: steps, loadFirst: true, clearing: false,
        sourceLocation: sourceLocation)
    let uncached = try run(Cold.self, file: file, steps: steps, loadFirst: false, clearing: false,
        sourceLocation: sourceLocation)
    let undecoded = try run(Warm.self, file: file, steps: steps, loadFirst: false, clearing: false,
        sourceLocation: sourceLocation)
    let description = "\(steps) on \(file)"
    for (index, line) in decoded.enumerated() {
        #expect(uncached[index] == line, "uncached, line \(index): \(description)", sourceLocation: sourceLocation)
        #expect(undecoded[index] == line, "undecoded snapshot, line \(index): \(description)",
            sourceLocation: sourceLocation)
    }
}
