import Foundation
import Testing

@testable import Persistible

// Adversarial cases for the word-at-a-time string search, the scanner's plain-member path, the keyed container's
// key comparison, the collections decoded in the decoder's own loops and the default file name.

private struct RPoint: Codable, Equatable {
    var x: Int
    var y: Int
}

private struct RNested: Codable {
    var points: [[RPoint]]
    var names: [String]?
    var maybe: [Int?]
    var grid: [[Int]]?
}

/// A `Set`, decoded as one, written sorted: two equal sets may list their members in two orders.
private struct RSortedSet: Decodable, CustomStringConvertible {
    var members: Set<Int>

    init(from decoder: any Decoder) throws {
        members = try Set<Int>(from: decoder)
    }

    var description: String { "\(members.sorted())" }
}

/// Eight bytes, not a collection.
private struct RIntBox: Codable, Equatable {
    var value: Int
}

/// Eight bytes, a collection inside, read through a single value container.
private struct RArrayBox: Codable, Equatable {
    var values: [Int]
    init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([Int].self)
    }
}

private final class RClassBox: Codable, CustomStringConvertible {
    var value: Int
    var description: String { "ClassBox(\(value))" }
}

private enum RShape: Codable {
    case line([Int])
    case dot
}

/// A key of its own spelling, to ask for any bytes.
private struct RAnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Reads the keys named in `userInfo` in order, each as `Int`, and reports what it found and what it missed.
private struct RProbe: Decodable, CustomStringConvertible {
    static let keys = CodingUserInfoKey(rawValue: "keys")!
    var found: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RAnyKey.self)
        let keys = decoder.userInfo[Self.keys] as! [String]
        found = try keys.map { key in
            let codingKey = RAnyKey(stringValue: key)
            let contains = container.contains(codingKey)
            let value = try container.decodeIfPresent(Int.self, forKey: codingKey)
            return "\(key.unicodeScalars.map { String($0.value, radix: 16) }):\(contains):\(value.map(String.init) ?? "nil")"
        }
        // Sorted: Foundation lists them in its dictionary's order.
        found.append("allKeys:\(container.allKeys.map { $0.stringValue.unicodeScalars.map { String($0.value, radix: 16) } }.map { "\($0)" }.sorted())")
    }

    var description: String { found.joined(separator: ",") }
}

/// Collections read through `superDecoder(forKey:)`, whose missing key gives a decoder of the `null` appended to
/// the copied bytes.
private struct RSuper: Decodable {
    enum CodingKeys: String, CodingKey { case present, missing }
    var found: [String] = []

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for key in [CodingKeys.present, .missing] {
            let single = try container.superDecoder(forKey: key).singleValueContainer()
            found.append("\((try? single.decode([RPoint]?.self)).map { "\($0 as Any)" } ?? "error")")
            found.append("\((try? single.decode([[Int]].self)).map { "\($0)" } ?? "error")")
            do {
                found.append("\(try single.decode([RPoint].self))")
            } catch {
                found.append(DirectDecoderDifferentialTests.describe(error))
            }
            do {
                found.append("\(try [String: [Int]](from: container.superDecoder(forKey: key)))")
            } catch {
                found.append(DirectDecoderDifferentialTests.describe(error))
            }
        }
    }
}

private struct REmpty: Decodable {}

/// Reads nothing of its value.
private struct RIgnoring: Decodable {
    init(from decoder: any Decoder) throws {}
}

private struct RSnake: Codable, Equatable {
    var aSs: Int?
    var kA: Int?
    var fooBar: Int?
    var aS: Int?
}

@Suite struct ReviewTests {
    private func outcome<T>(_ decode: () throws -> T) -> String {
        do {
            let value = try decode()
            if let dictionary = value as? [String: Any] { return "value \(dictionary.sorted { $0.key < $1.key })" }
            return "value \(value)"
        } catch {
            return DirectDecoderDifferentialTests.describe(error)
        }
    }

    func expectSame<T: Decodable>(
        _ type: T.Type, _ data: Data, _ configure: (JSONDecoder) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let decoder = JSONDecoder()
        configure(decoder)
        let foundation = outcome { try decoder.decode(type, from: data) }
        let direct = outcome { try decoder.decodeDirectly(type, from: data) }
        #expect(
            direct == foundation, "\(String(decoding: data, as: UTF8.self).debugDescription)",
            sourceLocation: sourceLocation
        )
    }

    func expectSame<T: Decodable>(
        _ type: T.Type, _ json: String, _ configure: (JSONDecoder) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectSame(type, Data(json.utf8), configure, sourceLocation: sourceLocation)
    }

    // MARK: 1. The end of a string and its backslashes

    /// Pieces of a string's spelling: escapes of quotes and backslashes in runs, and bytes that the word-at-a-time
    /// flags may borrow into (`#` is a quote's neighbour, `]` a backslash's).
    private static let pieces = [
        "a", "#", "]", "\\\"", "\\\\", "\\\\\\\"", "\\\\\\\\", "\\\\\\\\\\\"", "é", "\\u00e9", "\\n", "\\/", "\\u0022",
        "\\u005c", "😀", "\\ud83d\\ude00", "¢", "ܐ", "\u{7F}",
    ]

    private static func randomSpelling(_ random: inout SplitMix64, maxPieces: Int) -> String {
        let count = Int.random(in: 0...maxPieces, using: &random)
        return (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    @Test func stringsWithRunsOfBackslashesBeforeQuotesAtEveryOffset() {
        // A run of `n` backslashes, then a quote: escaped when odd; after `k` plain bytes, so at every offset.
        for run in 0...5 {
            for before in 0..<18 {
                for after in 0..<10 {
                    var spelling = String(repeating: "a", count: before) + String(repeating: "\\", count: run)
                    // An odd run escapes the quote; an even one needs a quote of its own escaped to keep going.
                    spelling += run % 2 == 1 ? "\"" : ""
                    spelling += String(repeating: "b", count: after)
                    let json = "\"" + spelling + "\""
                    // Top level: the string ends just before the `null` the copy appends.
                    expectSame(String.self, json)
                    expectSame([String].self, "[" + json + "," + json + "]")
                    expectSame([String: String].self, "{" + json + ":" + json + "}")
                    // Followed within a word by a string that holds a backslash.
                    expectSame([String].self, "[" + json + ",\"\\n\"]")
                    expectSame([String].self, "[" + json + ",\"x\\\"\"]")
                }
            }
        }
    }

    @Test func randomStringsAndKeysReadAsFoundationReadsThem() {
        var random = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<3000 {
            let spellings = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                Self.randomSpelling(&random, maxPieces: 8)
            }
            let strings = spellings.map { "\"" + $0 + "\"" }
            expectSame([String].self, "[" + strings.joined(separator: ",") + "]")
            expectSame(String.self, strings[0])
            // As keys, looked up by what they spell, in a container (keys' bytes unless escaped) and a dictionary.
            let object = "{" + strings.enumerated().map { "\($1):\($0)" }.joined(separator: ",") + "}"
            expectSame([String: Int].self, object)
            let keys = spellings.compactMap { try? JSONDecoder().decode(String.self, from: Data(("\"" + $0 + "\"").utf8)) }
            expectSame(RProbe.self, object) { $0.userInfo[RProbe.keys] = keys + ["zz"] }
            // Keys with one string after them within eight bytes, holding a backslash.
            let tight = "{" + strings.map { "\($0):\"\\\\\"" }.joined(separator: ",") + "}"
            expectSame([String: String].self, tight)
            expectSame(RProbe.self, tight) { $0.userInfo[RProbe.keys] = keys }
        }
    }

    /// Members skipped unread, whose nested strings hold the brackets, braces and quotes that the walk to a value's
    /// end counts, before the one member read.
    @Test func skippedMembersWithTrickyStringsEndWhereFoundationsDo() {
        var random = SplitMix64(seed: 0x5EED_0003)
        let tricky = ["]", "}", "[", "{", "\\\"]", "\\\\", "\\\\\\\"}"]
        for _ in 0..<3000 {
            let strings = (0..<4).map { _ in
                "\"" + Self.randomSpelling(&random, maxPieces: 5) + tricky.randomElement(using: &random)!
                    + Self.randomSpelling(&random, maxPieces: 5) + "\""
            }
            let skipped = "[" + strings[0] + ",{" + strings[1] + ":[" + strings[2] + "]}," + strings[3] + "]"
            for json in ["{\"skip\":" + skipped + ",\"value\":7}", "{" + strings[1] + ":" + strings[2] + ",\"value\":7}",
                "[" + skipped + ",{\"value\":8," + strings[0] + ":" + skipped + "},{\"value\":9}]"]
            {
                if json.first == "[" {
                    expectSame([RIntBox?].self, json)
                } else {
                    expectSame(RIntBox.self, json)
                }
            }
        }
    }

    @Test func escapedKeysAtEveryOffsetAreFound() {
        for before in 0..<17 {
            for escape in ["\\u0062", "\\\\", "\\\"", "\\/", "\\u00e9"] {
                let spelling = String(repeating: "k", count: before) + escape + "z"
                let key = try! JSONDecoder().decode(String.self, from: Data(("\"" + spelling + "\"").utf8))
                for value in ["1", "\"s\"", "\"\\\\\"", "[\"\\\"\"]"] {
                    let json = "{\"a\":\"\\\\\",\"" + spelling + "\":2,\"b\":" + value + "}"
                    expectSame(RProbe.self, json) { $0.userInfo[RProbe.keys] = [key, "a", "b"] }
                }
            }
        }
    }

    // MARK: 3. Keys outside ASCII, escaped, equivalent, repeated and converted

    @Test func keysOutsideASCIIEscapedEquivalentAndRepeated() {
        let kelvin = "\u{212A}"
        let cases: [(json: String, keys: [String])] = [
            (#"{"é":1}"#, ["é", "e\u{301}"]),
            (#"{"\u00e9":1}"#, ["é", "e\u{301}"]),
            (#"{"e\u0301":1}"#, ["é", "e\u{301}"]),
            ("{\"e\u{301}\":1}", ["é", "e\u{301}"]),
            ("{\"\(kelvin)\":1}", ["K", kelvin]),
            (#"{"\u212a":1}"#, ["K", kelvin]),
            (#"{"K":1}"#, ["K", kelvin]),
            ("{\"K\":1,\"\(kelvin)\":2}", ["K", kelvin]),
            ("{\"\(kelvin)\":1,\"K\":2}", ["K", kelvin]),
            (#"{"a":1,"a":2}"#, ["a"]),
            (#"{"a":1,"\u0061":2}"#, ["a"]),
            (#"{"\u0061":1,"a":2}"#, ["a"]),
            (#"{"é":1,"\u00e9":2}"#, ["é"]),
            (#"{"\u00e9":1,"é":2,"e\u0301":3}"#, ["é", "e\u{301}"]),
            (#"{"x":null,"x":1}"#, ["x"]),
            (#"{"b":1,"a":2,"a":3,"b":4}"#, ["a", "b", "a", "b"]),
        ]
        for (json, keys) in cases {
            expectSame(RProbe.self, json) { $0.userInfo[RProbe.keys] = keys }
            expectSame(RProbe.self, json) {
                $0.userInfo[RProbe.keys] = keys
                $0.keyDecodingStrategy = .convertFromSnakeCase
            }
            expectSame([String: Int?].self, json)
        }
        // More than 16 members, where repeats are found by a set of fingerprints.
        let many = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        for json in ["{" + many + ",\"k3\":99}", "{\"k3\":99," + many + "}", "{" + many + ",\"\\u006b3\":99}"] {
            expectSame(RProbe.self, json) { $0.userInfo[RProbe.keys] = ["k3", "k19", "k3", "k0"] }
        }
    }

    @Test func snakeCaseKeysThatLeaveOrEnterASCII() {
        let kelvin = "\u{212A}"
        for json in [
            #"{"a_ß":1}"#, #"{"a_\u00df":1}"#, "{\"\(kelvin)_a\":2}", #"{"\u212a_a":2}"#, #"{"foo_bar":3,"fooBar":4}"#,
            #"{"fooBar":4,"foo_bar":3}"#, #"{"a_ſ":5}"#, #"{"_foo_bar_":6}"#, #"{"foo__bar":7}"#,
            #"{"foo_\u0062ar":8}"#, #"{"a_s":9,"a_ſ":10}"#, #"{"e\u0301_a":11}"#, #"{"é_a":12}"#, "{\"e\u{301}_a\":13}",
            #"{"é_a":14,"e\u0301_a":15}"#,
        ] {
            expectSame(RSnake.self, json) { $0.keyDecodingStrategy = .convertFromSnakeCase }
            expectSame(RProbe.self, json) {
                $0.keyDecodingStrategy = .convertFromSnakeCase
                $0.userInfo[RProbe.keys] = ["aSs", "kA", "fooBar", "aS", "aſ", "a\u{17F}", "éA", "e\u{301}A"]
            }
        }
    }

    // MARK: 4. Collections in the decoder's own loops

    @Test func collectionsAtEveryLevelFailAsFoundationDoes() {
        let nested = [
            #"{"points":[[{"x":1,"y":2}],[{"x":3,"y":"4"}]],"maybe":[]}"#,
            #"{"points":[[{"x":1,"y":2}],[{"x":3}]],"maybe":[]}"#,
            #"{"points":[[{"x":1,"y":2}],null],"maybe":[]}"#,
            #"{"points":[[null]],"maybe":[]}"#,
            #"{"points":[[]],"maybe":[null,1,null]}"#,
            #"{"points":[],"maybe":[1,"a"]}"#,
            #"{"points":[],"maybe":[1],"names":null,"grid":null}"#,
            #"{"points":[],"maybe":[1],"names":["a",null]}"#,
            #"{"points":[],"maybe":[1],"names":"a"}"#,
            #"{"points":[],"maybe":[1],"grid":[[1],[2,null]]}"#,
            #"{"points":[],"maybe":[1],"grid":[[1],{}]}"#,
            #"{"points":[],"maybe":[1],"grid":[]}"#,
            #"{"points":{},"maybe":[]}"#,
            #"{"points":[{}],"maybe":[]}"#,
            #"{"points":[[{"x":1,"y":2,"x":"dup"}]],"maybe":[]}"#,
            #"{"points":[[{"x":1.5,"y":2}]],"maybe":[]}"#,
            #"{"maybe":[]}"#,
        ]
        for json in nested {
            expectSame(RNested.self, json)
            expectSame([RNested].self, "[" + json + "," + json + "]")
            expectSame([String: RNested].self, "{\"a\":" + json + "}")
        }
        for json in ["[]", "[[]]", "[[[]]]", "[[1,2],[3]]", "[[1,[2]]]", "[null]", "[[null]]", "null", "{}", "1",
            "[1,null]", "[[1],null]", "[\"a\"]", "[[\"1\"]]", "[{}]", "[[{}]]"]
        {
            expectSame([[Int]].self, json)
            expectSame([[Int?]].self, json)
            expectSame([[Int]?].self, json)
            expectSame([Int?].self, json)
            expectSame([[[Int]]].self, json)
            expectSame([[RPoint]].self, json)
            expectSame([RIntBox].self, json)
            expectSame([RArrayBox].self, json)
            expectSame([RClassBox].self, json)
            expectSame([RShape].self, json)
            expectSame([RSortedSet].self, json)
            expectSame([[String: Int]].self, json)
            expectSame([String: [Int]].self, json)
            expectSame([Int: [Int]].self, json)
            expectSame([[Int]]?.self, json)
        }
        for json in [#"{"value":1}"#, "[1,2]", "1", "null", #"{"value":"1"}"#, #"{"value":null}"#, #"{"line":{"_0":[1,null]}}"#,
            #"{"line":{"_0":[1,2]}}"#, #"{"dot":{}}"#, #"{"a":[1]}"#, #"{"b":null}"#, #"{"a":[1],"a":["x"]}"#, #"{"a":[1],"a":null}"#]
        {
            expectSame(RIntBox.self, json)
            expectSame(RArrayBox.self, json)
            expectSame(RClassBox.self, json)
            expectSame(RShape.self, json)
            expectSame(RSortedSet.self, json)
            expectSame([String: [Int]].self, json)
            expectSame([String: [Int?]].self, json)
            expectSame([String: [String: Int]].self, json)
            expectSame([Int: Int].self, json)
            expectSame([Int].self, json)
        }
    }

    /// Arrays of the scalars that `unwrap` has no case of its own for, and of types that read less than their value.
    @Test func arraysOfOtherScalarsAndOfTypesThatReadNothing() {
        let documents = [
            "[1, 2.5, -3]", "[1e39]", "[-1e-50]", "[300]", "[-1]", "[1, null]", "[true, 1]", "[\"AQID\"]",
            "[\"https://example.com/a b\"]", "[\"2024-01-02T03:04:05Z\"]", "[1700000000]", "[12345678901234567890]",
            "[[1], \"]\", {\"a\": \"}\"}, null]", "[{}]", "[]", "[\"x\", [\"\\\"]\"]]",
        ]
        for json in documents {
            expectSame([Float].self, json)
            expectSame([Int8].self, json)
            expectSame([UInt].self, json)
            expectSame([Bool].self, json)
            expectSame([Decimal].self, json)
            expectSame([Date].self, json)
            expectSame([Date].self, json) { $0.dateDecodingStrategy = .iso8601 }
            expectSame([Date].self, json) { $0.dateDecodingStrategy = .secondsSince1970 }
            expectSame([Data].self, json)
            expectSame([Data].self, json) { $0.dataDecodingStrategy = .deferredToData }
            expectSame([URL].self, json)
            expectSame([[UInt8]].self, "[" + json + "]")
            expectSame([REmpty].self, json)
            expectSame([RIgnoring].self, json)
            expectSame([[RIgnoring]].self, "[" + json + "," + json + "]")
        }
    }

    @Test func collectionsThroughSuperDecodersOfPresentAndMissingKeys() {
        for json in [#"{"present":[{"x":1,"y":2}]}"#, #"{"present":[[1],[2]]}"#, #"{"present":null}"#,
            #"{"present":{"a":[1]}}"#, #"{"present":[{"x":1}]}"#, #"{"present":[]}"#, #"{"present":[null]}"#]
        {
            expectSame(RSuper.self, json)
            expectSame([RSuper].self, "[" + json + "]")
        }
    }

    // MARK: 2. The scanner's plain members

    /// Whether the scans take `text` as an array exactly where `JSONSerialization` reads it, expecting so, and then
    /// find the elements and their `id` members that the tree of each element shows; `false` where it is no array.
    private func scansAsFoundationReads(_ text: String) -> Bool {
        let data = Data(text.utf8)
        let isJSON = (try? JSONSerialization.jsonObject(with: data, options: [])) is [Any]
        let elements = JSONScanner.elementRanges(of: data)
        let members = JSONScanner.elementRanges(of: data, member: "id")
        #expect((elements != nil) == isJSON, "\(text.debugDescription)")
        #expect((members != nil) == isJSON, "\(text.debugDescription)")
        guard let elements, let members else { return false }
        #expect(members.map(\.element) == elements, "\(text.debugDescription)")
        #expect(members.map(\.member) == idMembers(in: data, at: elements), "\(text.debugDescription)")
        return true
    }

    @Test func recordsWhoseOpeningsRepeatButWhoseMembersDoNot() {
        var random = SplitMix64(seed: 0x5EED_0002)
        let keys = ["id", "i", "idx", "ids", "", "identifier_long", "id2", "a", "name", "ID"]
        let values = [
            "1", "-1", "0", "-0", "123456789012", "\"x\"", "\"\"", "\"a long plain string value\"", "1.5", "1e3",
            "01", "-", "1 2", "\"a\\\"b\"", "\"é\"", "true", "null", "[1]", "{\"id\":1}", "{}", "[]", "\"unterminated",
            "tru", "+1", ".5", "1.", "\"\\u0041\"", "\"a\tb\"", "", "\"id\":1", "00", "1}", "1]", "-01", "\"\\\"",
        ]
        let spaces = ["", " ", "  ", "\n", "\r\n", "\n    ", "\r\n    ", "\t", "\n        "]
        var checked = 0
        for _ in 0..<6000 {
            let eol = Bool.random(using: &random) ? "\r\n" : "\n"
            // A template of members, repeated with small changes, so that openings repeat.
            let template = (0..<(Int.random(in: 0..<10, using: &random) == 0 ? 18 : Int.random(in: 1...5, using: &random))).map { _ in
                (keys.randomElement(using: &random)!, spaces.randomElement(using: &random)!,
                 spaces.randomElement(using: &random)!, spaces.randomElement(using: &random)!)
            }
            let records = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                let members = template.map { member in
                    var (key, before, beforeColon, afterColon) = member
                    if Int.random(in: 0..<6, using: &random) == 0 { key = keys.randomElement(using: &random)! }
                    if Int.random(in: 0..<6, using: &random) == 0 { before = spaces.randomElement(using: &random)! }
                    if Int.random(in: 0..<8, using: &random) == 0 { afterColon = spaces.randomElement(using: &random)! }
                    let value = Int.random(in: 0..<3, using: &random) == 0
                        ? values.randomElement(using: &random)! : values[Int.random(in: 0..<8, using: &random)]
                    return before + "\"" + key + "\"" + beforeColon + ":" + afterColon + value
                }
                let after = spaces.randomElement(using: &random)!
                return "{" + members.joined(separator: ",") + after + "}"
            }
            var text = "[" + eol + "  " + records.joined(separator: "," + eol + "  ") + eol + "]" + eol
            // Cut short, now and then, anywhere: the last record near the end of the bytes.
            if Int.random(in: 0..<4, using: &random) == 0 {
                text = String(decoding: text.utf8.prefix(Int.random(in: 0...text.utf8.count, using: &random)), as: UTF8.self)
            }
            // Every string here spells text, but for a lone surrogate none is escaped.
            if scansAsFoundationReads(text) { checked += 1 }
        }
        #expect(checked > 500)
    }

    @Test func openingsThatDifferFromTheLastRecordsInOneByte() {
        // A second member whose opening (indentation, key, colon, spaces) is the last record's but for one byte, at
        // each place in the two words compared, with openings of up to 18 bytes, and files that end within 16 bytes.
        var checked = 0
        for keyLength in [0, 1, 2, 5, 8, 9, 10, 11, 12, 13, 14] {
            for (indentation, colon) in [("", " : "), (" ", ":"), ("\n  ", " : "), ("\r\n    ", ": "), ("\n", "  :  ")] {
                let key = keyLength == 2 ? "id" : String(repeating: "i", count: keyLength)
                let opening = Array((indentation + "\"" + key + "\"" + colon).utf8)
                for place in opening.indices {
                    for byte in Array(" \"di:x\t".utf8) where byte != opening[place] {
                        var changed = opening
                        changed[place] = byte
                        for value in ["1", "\"v\"", "1.5", "-"] {
                            let first = "{\"a\":1," + String(decoding: opening, as: UTF8.self) + "2}"
                            let second = "{\"a\":1," + String(decoding: changed, as: UTF8.self) + value + "}"
                            for text in ["[" + first + "," + second + "]", "[" + first + "," + second + "," + first + "]"]
                            where scansAsFoundationReads(text) {
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(checked > 1000)
    }

    // MARK: 5. File names

    @Test func defaultFileNamesAreWhatStringDescribingWrites() {
        struct Local: Codable, Hashable, Persistible {}
        enum LocalEnum: Codable, Hashable, Persistible { case a }
        final class LocalClass: Codable, Hashable, Persistible {
            static func == (lhs: LocalClass, rhs: LocalClass) -> Bool { true }
            func hash(into hasher: inout Hasher) {}
        }
        #expect(Local.fileName == String(describing: Local.self))
        #expect(LocalEnum.fileName == String(describing: LocalEnum.self))
        #expect(LocalClass.fileName == String(describing: LocalClass.self))
        #expect(ReviewPrivate.fileName == String(describing: ReviewPrivate.self))
        #expect(ReviewPrivate.fileName == "ReviewPrivate")
        #expect(ReviewFilePrivate.fileName == "ReviewFilePrivate")
        #expect(ReviewPrivate.Inner.fileName == "Inner")
        #expect(ReviewGeneric<ReviewPrivate>.fileName == String(describing: ReviewGeneric<ReviewPrivate>.self))
        #expect(ReviewGeneric<ReviewPrivate>.fileName == "ReviewGeneric<ReviewPrivate>")
        #expect(ReviewGeneric<[Int?]>.fileName == String(describing: ReviewGeneric<[Int?]>.self))
        #expect(ReviewGeneric<Local>.fileName == String(describing: ReviewGeneric<Local>.self))
        #expect(ReviewGeneric<ReviewGeneric<Int>>.Nested.fileName == "Nested")
        #expect(ReviewEnum.fileName == "ReviewEnum")
        #expect(ReviewClass.fileName == "ReviewClass")
        #expect(generic(ReviewPrivate.self) == "ReviewPrivate")
        #expect(generic(Local.self) == String(describing: Local.self))
        #expect(runtimeTypeName(ReviewPrivate.Inner.self) == String(describing: ReviewPrivate.Inner.self))
        #expect(runtimeTypeName(Local.self) == String(describing: Local.self))
    }

    private func generic<T: Persistible>(_ type: T.Type) -> String { T.fileName }
}

private struct ReviewPrivate: Codable, Hashable, Persistible {
    struct Inner: Codable, Hashable, Persistible {}
}

fileprivate struct ReviewFilePrivate: Codable, Hashable, Persistible {}

private struct ReviewGeneric<T: Hashable & Codable>: Codable, Hashable, Persistible {
    struct Nested: Codable, Hashable, Persistible {}
}

private enum ReviewEnum: Codable, Hashable, Persistible { case a }

private final class ReviewClass: Codable, Hashable, Persistible {
    static func == (lhs: ReviewClass, rhs: ReviewClass) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

/// A tree, which decodes as deep as its document nests.
private struct RNode: Decodable, CustomStringConvertible {
    var children: [RNode]

    var description: String {
        var depth = 1
        var node = self
        while let next = node.children.first {
            depth += 1
            node = next
        }
        return "RNode(depth: \(depth))"
    }
}

extension ReviewTests {
    /// Foundation refuses documents nested more than 512 deep as not valid JSON; so does the direct decoder, which
    /// decoded them before, and thousands deep overflowed the stack in a recursive type's decoding (20,000 levels
    /// here, a crash of the test process without the limit).
    @Test func documentsNestedDeeperThanFoundationReadsAreNotValidJSON() {
        for levels in [10, 255, 256, 257, 300, 20_000] {
            let json = String(repeating: "{\"children\":[", count: levels) + String(repeating: "]}", count: levels)
            expectSame(RNode.self, json)
        }
    }
}

/// A record type that nests as deep as its file does.
private struct DeepTree: Codable, Hashable, Persistible {
    var children: [DeepTree]
}

extension ReviewTests {
    /// A file nested 20,000 deep, as a hand edit or another program could write it: a load and a save beside it
    /// throw as Foundation's decoder does, leave the bytes as they were and no temporary, and crash nothing.
    @Test func aFileNestedDeeperThanFoundationReadsIsAnErrorNotACrash() throws {
        try inTemporaryDirectory { directory in
            let levels = 20_000
            let nested = String(repeating: "{\"children\":[", count: levels) + String(repeating: "]}", count: levels)
            let bytes = Data("[\(nested)]".utf8)
            try bytes.write(to: DeepTree.archiveUrl)
            #expect(persistenceError { _ = try DeepTree.loadListFromFile() } != nil)
            #expect(persistenceError { try DeepTree(children: []).saveToFile() } != nil)
            #expect(try Data(contentsOf: DeepTree.archiveUrl) == bytes)
            #expect(try directory.temporaries().isEmpty)
        }
    }
}
