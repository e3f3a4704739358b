import Foundation
import Testing

@testable import Persistible

/// Hand-written cases for each strategy, special type and container call: the direct decoder gives what Foundation
/// gives, value or error, compared as text so that NaN and types without `Equatable` compare too.
@Suite struct DirectDecoderTests {
    /// Decodes `json` as `type` with both decoders and expects the same description of the value or the error.
    private func expectSame<T: Decodable>(
        _ type: T.Type, _ json: String, _ configure: (JSONDecoder) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectSame(type, Data(json.utf8), configure, sourceLocation: sourceLocation)
    }

    private func expectSame<T: Decodable>(
        _ type: T.Type, _ data: Data, _ configure: (JSONDecoder) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let decoder = JSONDecoder()
        configure(decoder)
        func outcome(_ decode: () throws -> T) -> String {
            do {
                let value = try decode()
                // A dictionary's order is its hashing's, which differs between two equal dictionaries, in arrays too.
                if let dictionary = value as? [String: Any] {
                    return "value \(dictionary.sorted { $0.key < $1.key })"
                }
                if let dictionaries = value as? [[String: Any]] {
                    return "value \(dictionaries.map { $0.sorted { $0.key < $1.key } })"
                }
                return "value \(value)"
            } catch {
                return DirectDecoderDifferentialTests.describe(error)
            }
        }
        let foundation = outcome { try decoder.decode(type, from: data) }
        let direct = outcome { try decoder.decodeDirectly(type, from: data) }
        #expect(direct == foundation, sourceLocation: sourceLocation)
    }

    @Test func stringsReadEveryEscapeAndRejectLoneSurrogates() {
        for json in [
            #"["a\"b\\c\/d\be\ff\ng\rh\ti", "\u00e9\u65e5\ud83d\ude00", "caf\u00E9", "", "é日本😀"]"#,
            #"["\ud800"]"#, #"["\udc00"]"#, #"["\ud800\u0041"]"#, #"["\ud800x"]"#, #"["\u0000"]"#,
        ] {
            expectSame([String].self, json)
        }
    }

    /// Escapes at each place in and around an eight-byte word, where the unescaping's word-at-a-time search for
    /// backslashes hands over to its byte-by-byte one, and escaped quotes, which that search stops at too, and which
    /// the search for a string's end tells from its closing quote by the run of backslashes before them.
    @Test func escapesAreReadWhereverTheyFallInAWord() {
        let escapes = [#"\n"#, #"\""#, #"\\"#, #"\u00e9"#, #"\ud83d\ude00"#, #"\""# + #"\\"#, #"\\"# + #"\""#, #"\\\\"#]
        for escape in escapes {
            for length in 0..<20 {
                let strings = (0...length).map { at in
                    "\"" + String(repeating: "a", count: at) + escape
                        + String(repeating: "é", count: length - at) + "\""
                }
                expectSame([String].self, "[\(strings.joined(separator: ", "))]")
            }
        }
    }

    @Test func collectionsOfScalarsReadInTheirOwnLoopsFailWhereFoundationFails() {
        for json in ["[1,2 , -3]", "[]", #"[1,"2"]"#, "[1, null]", "[1, 2.5]", "null", "[1e400]", "[[1], [2, true]]"] {
            expectSame([Int].self, json)
            expectSame([Double].self, json)
            expectSame([[Int]].self, json)
        }
        for json in [#"["a", "b\n", "\u00e9"]"#, #"["a", 1]"#, #"["a", null]"#, #"[["a"], ["b", {}]]"#, "null"] {
            expectSame([String].self, json)
            expectSame([[String]].self, json)
        }
        // One wrong value at most: of two, Foundation names first the one its hashing puts first.
        for json in [#"{"a": 1, "b": 2, "a": 3}"#, #"{"a": 1, "b": "2"}"#, #"{"a": 1, "b": null}"#, "[]", "{}"] {
            expectSame([String: Int].self, json)
            expectSame([[String: Int]].self, "[\(json), {\"c\": 4}]")
        }
        for json in [#"{"a": "1", "b": "2", "a": 3}"#, #"{"a": "1", "b": 2}"#, #"{"a": "x", "b": null}"#, "[]"] {
            expectSame([String: String].self, json)
        }
    }

    @Test func textThatIsNotUTF8FailsOnlyWhereItIsRead() {
        let invalid: [UInt8] = [0xC3, 0x28]
        let read = Data(#"{"a":""#.utf8) + invalid + Data(#""}"#.utf8)
        expectSame([String: String].self, read)
        let unread = Data(#"{"a":"x","b":""#.utf8) + invalid + Data(#""}"#.utf8)
        expectSame(Only.self, unread)
        let key = Data(#"{"a":"x",""#.utf8) + invalid + Data(#"":1}"#.utf8)
        expectSame(Only.self, key)
    }

    struct Only: Decodable, Equatable {
        var a: String
    }

    @Test func aSliceOfLargerDataDecodesFromItsOwnStart() {
        let file = Data(#"[{"a":"first"},{"a":"second"}]"#.utf8)
        let slice = file[15..<29]
        #expect(slice.startIndex == 15)
        #expect((try? JSONDecoder().decodeDirectly(Only.self, from: slice))?.a == "second")
        expectSame(Only.self, slice)
    }

    @Test func bytesThatAreNotStrictJSONAreLeftToFoundation() {
        expectSame([Int].self, Data([0xEF, 0xBB, 0xBF]) + Data("[1,2]".utf8))
        expectSame([Int].self, "[1,2]".data(using: .utf16)!)
        expectSame([Int].self, "[1,2,]")
        expectSame([Int].self, "[1,2] x")
        expectSame(Only.self, #"{a:"x"}"#) { $0.allowsJSON5 = true }
    }

    @Test func integersConvertAndOverflowAsInFoundation() {
        for literal in ["1e2", "1.0", "-0", "1.5", "-1", "2E1", "1.0000000000000001", "127", "128", "-128", "-129",
                        "255", "256", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                        "-9223372036854775809", "18446744073709551615", "18446744073709551616", "9.007199254740993e15",
                        "1e20", "123456789012345678901234567890", "\"1\"", "null", "true"] {
            expectSame(Int.self, literal)
            expectSame(Int8.self, literal)
            expectSame(UInt8.self, literal)
            expectSame(Int64.self, literal)
            expectSame(UInt64.self, literal)
            expectSame([UInt].self, "[\(literal)]")
            expectSame([String: Int32].self, "{\"k\":\(literal)}")
        }
    }

    @Test func floatingPointNumbersRoundAndOverflowAsInFoundation() {
        for literal in ["0", "-0", "-0.0", "0.1", "1e400", "-1e400", "1e-400", "0e-400", "4.9e-324", "2.5e-324",
                        "2.2250738585072014e-308", "1.7976931348623157e308", "123456789012345678", "3.4028235e38",
                        "3.4028236e38", "1e39", "1e-50", "9007199254740993", "0.30000000000000004", "1E+2", "1e23",
                        "\"nan\"", "\"+inf\""] {
            expectSame(Double.self, literal)
            expectSame(Float.self, literal)
            expectSame([Double].self, "[\(literal)]")
        }
        for json in [#"["nan", "+inf", "-inf", "inf", "n\u0061n", 1]"#, #"[null]"#] {
            expectSame([Double].self, json) {
                $0.nonConformingFloatDecodingStrategy = .convertFromString(
                    positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan"
                )
            }
            expectSame([Float].self, json) {
                $0.nonConformingFloatDecodingStrategy = .convertFromString(
                    positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan"
                )
            }
        }
    }

    @Test func decimalsAndURLsAsInFoundation() {
        for literal in ["3.14", "-0", "1e200", "1e-200", "12345678901234567890123456789012345678901", "\"3\"", "null"] {
            expectSame(Decimal.self, literal)
            expectSame([String: Decimal].self, "{\"d\":\(literal)}")
        }
        for literal in [#""https://example.com/a?b=c""#, #""""#, #""http://exa mple.com""#, "1", "null"] {
            expectSame([URL].self, "[\(literal)]")
        }
    }

    @Test func datesUnderEachStrategy() {
        let values = ["0", "1700000000.5", "-1e3", "1e400", #""2024-02-29T12:00:00Z""#, #""2024-13-01""#, "null", "[]"]
        let strategies: [JSONDecoder.DateDecodingStrategy] = [
            .deferredToDate, .secondsSince1970, .millisecondsSince1970, .iso8601,
            .custom { decoder in
                let container = try decoder.singleValueContainer()
                let path = decoder.codingPath.map(\.stringValue).joined(separator: ".")
                return Date(timeIntervalSince1970: Double(path.count) + (try container.decode(Double.self)))
            },
        ]
        for strategy in strategies {
            for value in values {
                expectSame(Date.self, value) { $0.dateDecodingStrategy = strategy }
                expectSame([String: [Date]].self, "{\"at\":[\(value)]}") { $0.dateDecodingStrategy = strategy }
            }
        }
    }

    @Test func dataUnderEachStrategy() {
        let values = [#""aGVsbG8=""#, #""aGVs\/bG8=""#, #""aGVsbG8""#, #""not base64!""#, #""""#, "[1,2,300]", "[]",
                      "1", "null"]
        let strategies: [JSONDecoder.DataDecodingStrategy] = [
            .deferredToData, .base64,
            .custom { decoder in Data(try decoder.singleValueContainer().decode(String.self).utf8) },
        ]
        for strategy in strategies {
            for value in values {
                expectSame(Data.self, value) { $0.dataDecodingStrategy = strategy }
                expectSame([[Data]].self, "[[\(value)]]") { $0.dataDecodingStrategy = strategy }
            }
        }
    }

    struct Person: Decodable, CustomStringConvertible {
        var firstName: String
        var lastName: String?
        var tags: [String: Int]

        var description: String {
            "\(firstName) \(lastName as Any) \(tags.sorted { $0.key < $1.key })"
        }
    }

    @Test func keysUnderEachStrategy() {
        let documents = [
            #"{"first_name":"Ada","last_name":null,"tags":{"snake_case":1,"camelCase":2}}"#,
            #"{"firstName":"Ada","tags":{}}"#,
            #"{"first_name":"Ada","firstName":"Bea","tags":{"a":1,"a":"x"}}"#,
            #"{"_first__name_":"Ada","tags":{"k":null}}"#,
            #"{"FIRST_NAME":"Ada","tags":[]}"#,
            #"{"first\u005fname":"Ada","tags":{"\u00e9":1,"e\u0301":2}}"#,
        ]
        let strategies: [JSONDecoder.KeyDecodingStrategy] = [
            .useDefaultKeys, .convertFromSnakeCase,
            .custom { path in DirectCodingKey(stringValue: "\(path.count)" + path.last!.stringValue.lowercased()) },
            .custom { path in
                DirectCodingKey(stringValue: path.last!.stringValue.replacingOccurrences(of: "_", with: ""))
            },
        ]
        for strategy in strategies {
            for document in documents {
                expectSame(Person.self, document) { $0.keyDecodingStrategy = strategy }
                expectSame(Tags.self, document) { $0.keyDecodingStrategy = strategy }
            }
        }
    }

    /// Only the dictionary: with more than one wrong value in a dictionary under `.useDefaultKeys`, Foundation
    /// names the first its hashing order reaches, which changes from run to run.
    struct Tags: Decodable, CustomStringConvertible {
        var tags: [String: Int?]

        var description: String {
            "\(tags.sorted { $0.key < $1.key })"
        }
    }

    @Test func duplicateAndEquivalentKeysKeepTheFirst() {
        expectSame(Only.self, #"{"a":"first","a":"second"}"#)
        expectSame(Only.self, #"{"a":null,"a":"second"}"#)
        expectSame([String: Int].self, #"{"a":1,"b":2,"a":3}"#)
        expectSame([String: Int].self, #"{"a":1,"a":"x"}"#)
        expectSame([String: Int].self, #"{"a":1,"a":"x"}"#) { $0.keyDecodingStrategy = .convertFromSnakeCase }
        expectSame([String: Int].self, #"{"5":"x"}"#)
        expectSame([String: Int].self, #"{"5":"x"}"#) { $0.keyDecodingStrategy = .convertFromSnakeCase }
        expectSame([String: Int].self, "null")
        expectSame([String: Int].self, "null") { $0.keyDecodingStrategy = .convertFromSnakeCase }
        expectSame(Accented.self, #"{"caf\u00e9":1}"#)
        expectSame(Accented.self, #"{"cafe\u0301":1,"café":2}"#)
        expectSame(Accented.self, "{\"cafe\u{301}\":3}")
        expectSame(Accented.self, #"{"Å":4}"#)
    }

    struct Accented: Decodable {
        var café: Int
    }

    /// Past the sixteenth member, where keys are found in a table: the first of two still counts, and keys are
    /// asked for in any order, plain, escaped or beyond ASCII.
    @Test func objectsOfManyMembersKeepTheFirstOfTwoKeysWhateverTheOrderAsked() {
        let members = (0..<40).map { #""k\#($0)":\#($0)"# }
        let duplicated = "{" + (members + [#""k30":"second""#, #""k3":"second""#]).joined(separator: ",") + "}"
        expectSame(Reversed.self, duplicated)
        expectSame(SortedNumbers.self, "{" + members.joined(separator: ",").replacingOccurrences(of: "k", with: "") + "}")
        expectSame(SortedNumbers.self, #"{"1":1,"1":"x"}"#)
        let escaped = "{" + (members + [#""k\u0033\u0039":"escaped""#, #""\u212A":"kelvin""#]).joined(separator: ",") + "}"
        expectSame(Reversed.self, escaped)
        expectSame(Reversed.self, escaped) { $0.keyDecodingStrategy = .convertFromSnakeCase }
    }

    /// Reads every key from the last to the first, and then the first again.
    struct Reversed: Decodable, CustomStringConvertible {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: DirectCodingKey.self)
            let keys = (0..<40).reversed().map { "k\($0)" } + ["k0", "K", "k39", "missing"]
            values = try keys.map { key in
                let key = DirectCodingKey(stringValue: key)
                guard container.contains(key) else { return "none" }
                if let text = try? container.decode(String.self, forKey: key) { return text }
                return String(try container.decode(Int.self, forKey: key))
            }
            values.append(container.allKeys.map(\.stringValue).sorted().joined(separator: " "))
        }

        var description: String { values.joined(separator: ",") }
    }

    /// A `[Int: Int]`, read by its keyed container's keys, described in the order of its keys.
    struct SortedNumbers: Decodable, CustomStringConvertible {
        var description: String

        init(from decoder: any Decoder) throws {
            description = "\(try [Int: Int](from: decoder).sorted { $0.key < $1.key })"
        }
    }

    @Test func containersReportWhatFoundationReports() {
        let documents = [
            #"{"list":[1,null,"x",[2],{"k":3}],"object":{"a":1,"b":null},"super":{"s":1},"other":true}"#,
            #"{"list":[],"object":{},"other":null}"#,
            #"{"list":null,"object":[],"super":null}"#,
            #"{"list":{"a":1},"object":"x"}"#,
            #"[1,2]"#, "null", "3",
        ]
        for document in documents {
            expectSame(Transcript.self, document)
            expectSame([String: Transcript].self, "{\"t\":\(document)}")
            expectSame([Transcript].self, "[\(document),\(document)]")
        }
    }

    /// Everything a type's `init(from:)` can ask a decoder, written down as it goes, errors included.
    struct Transcript: Decodable, CustomStringConvertible {
        var description: String

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int?

            init(stringValue: String) {
                self.stringValue = stringValue
            }

            init(intValue: Int) {
                stringValue = "\(intValue)"
                self.intValue = intValue
            }
        }

        init(from decoder: any Decoder) throws {
            var lines: [String] = []
            func path(_ keys: [any CodingKey]) -> String {
                keys.map { "\($0.stringValue)\($0.intValue.map { "#\($0)" } ?? "")" }.joined(separator: ".")
            }
            func note(_ label: String, _ read: () throws -> Any) {
                do {
                    lines.append("\(label): \(try read())")
                } catch {
                    lines.append("\(label): \(DirectDecoderDifferentialTests.describe(error))")
                }
            }
            lines.append("path \(path(decoder.codingPath))")
            note("single nil") { try decoder.singleValueContainer().decodeNil() }
            note("single int") { try decoder.singleValueContainer().decode(Int.self) }
            note("unkeyed") { try decoder.unkeyedContainer().count as Any }
            guard let container = try? decoder.container(keyedBy: Key.self) else {
                note("keyed") { try decoder.container(keyedBy: Key.self).allKeys }
                description = lines.joined(separator: "\n")
                return
            }
            let key = { (name: String) in Key(stringValue: name) }
            note("path") { path(container.codingPath) }
            note("keys") { container.allKeys.map(\.stringValue).sorted() }
            note("contains") { ["list", "object", "missing"].map { container.contains(key($0)) } }
            note("nil other") { try container.decodeNil(forKey: key("other")) }
            note("nil missing") { try container.decodeNil(forKey: key("missing")) }
            note("bool other") { try container.decode(Bool.self, forKey: key("other")) }
            note("bool? other") { try container.decodeIfPresent(Bool.self, forKey: key("other")) as Any }
            note("int? missing") { try container.decodeIfPresent(Int.self, forKey: key("missing")) as Any }
            note("string object") { try container.decode(String.self, forKey: key("object")) }
            note("list") {
                var list = try container.nestedUnkeyedContainer(forKey: key("list"))
                var read = ["count \(list.count as Any) path \(path(list.codingPath))"]
                while !list.isAtEnd {
                    let index = list.currentIndex
                    if try list.decodeNil() {
                        read.append("\(index) nil")
                    } else if let int = try? list.decode(Int.self) {
                        read.append("\(index) int \(int)")
                    } else if var nested = try? list.nestedUnkeyedContainer() {
                        read.append("\(index) nested \(path(nested.codingPath)) \(try nested.decode(Int.self))")
                    } else if let nested = try? list.nestedContainer(keyedBy: Key.self) {
                        let value = try nested.decode(Int.self, forKey: key("k"))
                        read.append("\(index) keyed \(path(nested.codingPath)) \(value)")
                    } else {
                        read.append("\(index) string \(try list.decode(String.self))")
                    }
                }
                for attempt in 0..<2 {
                    do {
                        _ = try list.decode(Int.self)
                    } catch {
                        read.append("end \(attempt) \(DirectDecoderDifferentialTests.describe(error))")
                    }
                    // A type of its own: the scalars' `decodeIfPresent` at the end is the protocol's, which stays.
                    read.append("ifPresent \(try list.decodeIfPresent([Int].self) as Any) at \(list.currentIndex)")
                    read.append("ifPresent \(try list.decodeIfPresent([String].self) as Any) at \(list.currentIndex)")
                }
                note("nil at end") { try list.decodeNil() }
                note("super at end") { try list.superDecoder().codingPath.count }
                note("nested at end") { try list.nestedUnkeyedContainer().count as Any }
                return read
            }
            note("object") {
                let object = try container.nestedContainer(keyedBy: Key.self, forKey: key("object"))
                return [path(object.codingPath), "\(try object.decodeIfPresent(Int.self, forKey: key("b")) as Any)",
                        "\(try object.decode(Int.self, forKey: key("a")))"]
            }
            note("super") {
                let superDecoder = try container.superDecoder()
                let nested = try superDecoder.container(keyedBy: Key.self)
                return "\(path(superDecoder.codingPath)) \(try nested.decode(Int.self, forKey: key("s")))"
            }
            note("super missing") {
                let superDecoder = try container.superDecoder(forKey: key("missing"))
                return "\(path(superDecoder.codingPath)) \(try superDecoder.singleValueContainer().decodeNil())"
            }
            description = lines.joined(separator: "\n")
        }
    }
}
