import Foundation
import Testing

@testable import Persistible

/// The scanner reads strings, indentation and digits a word (eight bytes) at a time and the last few bytes one at a
/// time. These documents put each kind of byte at each offset of a word and near the end, and each knows what the
/// scan must find: the range of every element, or the byte where the JSON stops and what the message says it expected.
@Suite struct WordAtATimeScanTests {
    @Test func stringsOfEveryLengthAreFoundWholeWhateverTheyHoldAndWhereverTheyEnd() {
        for length in 0...40 {
            for trailing in 0..<10 {
                var document = Document(seed: UInt64(length * 10 + trailing))
                document.elements()
                document.element { $0.string(length: length) }
                document.close(trailing: trailing)
                check(document)
            }
        }
    }

    @Test(arguments: StringFault.allCases)
    func aFaultInAStringIsFoundWhereverItIs(_ fault: StringFault) {
        for length in 0...40 {
            for offset in 0...length {
                var document = Document(seed: UInt64(fault.rawValue * 10_000 + length * 100 + offset))
                document.elements()
                document.element { $0.string(length: length, fault: (offset, fault)) }
                document.close(trailing: offset % 10)
                check(document)
            }
        }
    }

    @Test(arguments: [nil] + NumberFault.allCases)
    func numbersWithEveryLengthOfDigitsAreFoundWholeOrStopAtTheFirstByteThatIsNoDigit(_ fault: NumberFault?) {
        for digits in 1...20 {
            for trial in 0..<10 {
                var document = Document(seed: UInt64((fault?.rawValue ?? 9) * 10_000 + digits * 100 + trial))
                document.elements()
                document.element { $0.number(digits: digits, fault: fault) }
                document.close(trailing: trial)
                check(document)
            }
        }
    }

    @Test func literalsAreFoundWholeOrStopAtTheirFirstWrongLetter() {
        for literal in ["true", "false", "null"] {
            // Each letter after the first, which tells the literal, wrong or cut off in turn, then none.
            for wrong in 1...literal.count {
                for trailing in 0..<20 {
                    var document = Document(seed: UInt64(literal.count * 1_000 + wrong * 100 + trailing))
                    document.elements()
                    document.element { $0.literal(literal, wrongAt: wrong, cutThere: trailing >= 10) }
                    document.close(trailing: trailing % 10)
                    check(document)
                }
            }
        }
    }

    @Test(arguments: WhitespacePlace.allCases)
    func aControlCharacterInWhitespaceIsFoundWhereverWhitespaceMayBe(_ place: WhitespacePlace) {
        for trial in 0..<100 {
            var document = Document(seed: UInt64(place.rawValue * 10_000 + trial))
            document.elements()
            document.element(afterFaultyWhitespace: place == .beforeElement) { $0.object(faultyWhitespace: place) }
            if place == .afterElement { document.faultyWhitespace(expecting: Expected.afterElement) }
            document.close(trailing: trial % 10)
            check(document)
        }
    }

    @Test func theMemberSoughtIsFoundByItsKeyWhereverItEndsAndNotWhereTwoOrAnEscapedKeyMakeItUnsure() {
        // The key sought, spelled with an escape, keys that start or end alike, and keys that need the slow path.
        let keys = ["id", "id", "i\\u0064", "i", "idx", "xid", "ID", "", "i\\\"d", "\\\"id", "a", "school", "éid"]
        for trial in 0..<3_000 {
            var document = Document(seed: UInt64(trial))
            document.elements()
            for _ in 0..<(1 + trial % 3) {
                document.element { $0.object(keys: keys) }
            }
            document.close(trailing: trial % 10)
            check(document)
        }
    }

    @Test(arguments: StringFault.allCases)
    func aFaultInAKeyIsFoundWhereverItIs(_ fault: StringFault) {
        for trial in 0..<300 {
            var document = Document(seed: UInt64(fault.rawValue * 10_000 + trial))
            document.elements()
            document.element { $0.object(keyFault: (trial % 12, fault)) }
            document.close(trailing: trial % 10)
            check(document)
        }
    }

    @Test func aStringThatSpellsNoTextFailsTheMemberScanWhereverItIsAndOnlyThere() {
        // Bytes that are no UTF-8 (a lone continuation, cut or overlong sequences, an encoded surrogate, beyond
        // U+10FFFF), escaped surrogates without their pair, and the text they are close to.
        let noUTF8: [[UInt8]] = [
            [0x80], [0xC3], [0xC0, 0x80], [0xE6, 0x97], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF],
        ]
        let loneSurrogates = [
            "\\uD83C", "\\uDF89", "\\uD83C\\u0041", "\\uD83C\\n", "\\uDBFF\\uD800", "\\uDF89\\uDC00",
            "\\uD83C\\uDF89\\uDF89",
        ]
        let utf8: [[UInt8]] = [[0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x8E, 0x89]]
        let escapes = ["\\uD83C\\uDF89", "\\uDBFF\\uDFFF", "\\u00e9", "\\u0041\\uD800\\uDC00"]
        let faults = noUTF8 + loneSurrogates.map { Array($0.utf8) }
        let texts = utf8 + escapes.map { Array($0.utf8) }
        for (characters, spellsText) in faults.map({ ($0, false) }) + texts.map({ ($0, true) }) {
            for before in 0..<20 {
                for inKey in [false, true] {
                    let string = String(repeating: "a", count: before).utf8 + characters + "z".utf8
                    let (key, value) = inKey ? (string, Array("1".utf8)) : (Array("name".utf8), [34] + string + [34])
                    let bytes: [UInt8] = "[\n  {\n    \"id\" : 7,\n    \"".utf8 + key + "\" : ".utf8 + value
                        + "\n  }\n]".utf8
                    let data = Data(bytes)
                    let text = String(decoding: bytes, as: UTF8.self).debugDescription
                    #expect(JSONScanner.elementRanges(of: data)?.count == 1, "\(text)")
                    #expect((JSONScanner.elementRanges(of: data, member: "id") != nil) == spellsText, "\(text)")
                }
            }
        }
    }

    @Test func membersAsTheEncoderWritesThemAreReadAsAnyOthersAndEveryFaultInThemIsFound() {
        // Members that the scan reads without its general path (a key and a value of plain ASCII, or an integer),
        // members just past what it reads so, and faults just past them, each placed among plain members, where the
        // indentation before its key may be the one before the last key or another, and the bytes up to its value
        // those at the same place in the record before, or nearly.
        let plain = [#""age" : 23"#, #""id" : 7"#, #""name" : "Person 7""#, #""id" : -120"#, "\"\" : 0", #""id":"""#]
        let notPlain = [
            #""id" : 1.5"#, #""id" : 1e3"#, #""id" : -0"#, #""id" : 0"#, #""id" : 10E-2"#, #""id" : {"id" : 1}"#,
            #""id" : [1, "a"]"#, #""id" : true"#, #""id" : null"#, #""id" : "é""#, #""id" : "a\"b""#,
            #""i\u0064" : 1"#, #""id\\" : 1"#, #""éid" : 1"#, "\"id\"\t:\t\"x\"", #""name" : "Person 7"   "#,
            #""id" : "a/b c~""#, #""id" :  7"#, #""id"  : 7"#, #""name" : "Person 7 and more than a word""#,
            #""idx": 7"#,
        ]
        let grammarFaults = [
            #""id" : -"#, #""id" : 1."#, #""id" : 01"#, #""id" : -01"#, #""id" : 00"#, #""id" : 1e"#, #""id" : 1e+"#,
            #""id" : .5"#, #""id" : +1"#, #""id" : 1 2"#, #""id" : 1x"#, #""id" : "a\qb""#, #""id" : "a\u12G4""#,
            "\"id\" : \"a\u{1}b\"", "\"i\u{1F}d\" : 1", "\"id\" : \"a\tb\"", #""id" 1"#, #""id" : "#, #""id" ,"#,
            #""id" : "a" "b""#, #""age" : 1 "id" : 2"#, #""id" : 1,"#, #""id" : 1,,"#, #""id" : {"a" : }"#,
            #""id" : [1,]"#, #""id" : {"a" : 1"#, #""id" : ["#, #"id : 1"#, #"'id' : 1"#, #""id" : tru"#,
            #""id" : "a"#, #""id" : 1 :"#, #""id" :: 1"#, #""id" : 1]"#, "\"id\" : 1\u{0}", #""id" :  -"#,
            #""name" :  "Person \x""#, "\"id\"\u{1}: 7", "7", #""x""#, #""x" "y""#,
        ]
        // Bytes that are no UTF-8, and an escaped lone surrogate, which only the member scan rejects.
        let textFaults: [[UInt8]] = [
            Array(#""id" : ""#.utf8) + [0x80] + Array("\"".utf8), Array(#""i"#.utf8) + [0xC3] + Array(#"d" : 1"#.utf8),
            Array(#""name" : "Person "#.utf8) + [0xFF] + Array("\"".utf8),
            Array(#""id" : ""#.utf8) + [0xED, 0xA0, 0x80] + Array("\"".utf8), Array(#""id" : "\uD800""#.utf8),
            Array(#""idxxxxxxx" : "abcdefgh"#.utf8) + [0xE6, 0x97] + Array("\"".utf8),
        ]
        let cases = plain.map { (Array($0.utf8), true, true) } + notPlain.map { (Array($0.utf8), true, true) }
            + grammarFaults.map { (Array($0.utf8), false, false) } + textFaults.map { ($0, true, false) }
        let indentations = ["\n    ", "\n    ", "\n      ", "\n  ", " ", "", "\n\t"]
        for (member, isJSON, spellsText) in cases {
            for (place, indentation) in (0..<3).flatMap({ place in indentations.map { (place, $0) } }) {
                var members = Array(plain.prefix(3).map { Array($0.utf8) })
                members[place] = member
                var record = Array("{".utf8)
                for (index, member) in members.enumerated() {
                    let before = index == place ? indentation : "\n    "
                    record += Array(((index == 0 ? "" : ",") + before).utf8) + member
                }
                record += "\n  }".utf8
                for recordsBefore in 0..<2 {
                    let other = Array("{\n    \"age\" : 23,\n    \"id\" : 1,\n    \"name\" : \"x\"\n  }".utf8)
                    let bytes = Array("[\n  ".utf8) + (recordsBefore == 0 ? [] : other + ",\n  ".utf8) + record
                        + ",\n  ".utf8 + other + "\n]".utf8
                    let data = Data(bytes)
                    let text = String(decoding: bytes, as: UTF8.self).debugDescription
                    let elements = JSONScanner.elementRanges(of: data)
                    let members = JSONScanner.elementRanges(of: data, member: "id")
                    #expect((elements != nil) == isJSON, "\(text)")
                    #expect((members != nil) == spellsText, "\(text)")
                    // The message looks into strings' bytes, not their escapes, for UTF-8.
                    #expect((JSONScanner.syntaxError(in: data) == nil) == isJSON || isJSON != spellsText, "\(text)")
                    guard spellsText, let elements else { continue }
                    #expect(members?.map(\.element) == elements, "\(text)")
                    let ends = elements.map { UInt32($0.upperBound) }
                    #expect(JSONScanner.elementRanges(of: data, endingAt: ends) == elements, "\(text)")
                    #expect(members?.map(\.member) == idMembers(in: data, at: elements), "\(text)")
                }
            }
        }
    }

    /// A cold edit finds the records' ranges again from where each ends: after a byte order mark, around any
    /// whitespace, for any kind of value; an end that no `,` follows before the next record finds none.
    @Test func rangesFoundFromEndsAreThoseScanned() throws {
        let data = Data("\u{FEFF} [ {\"id\" : 1} ,\n\t[2]\r\n,\"3\",4\n]\n".utf8)
        let ranges = try #require(JSONScanner.elementRanges(of: data))
        let ends = ranges.map { UInt32($0.upperBound) }
        #expect(JSONScanner.elementRanges(of: data, endingAt: ends) == ranges)
        #expect(JSONScanner.elementRanges(of: data, endingAt: []) == [])
        for moved in ends.indices.dropLast() {
            var wrong = ends
            wrong[moved] -= 1
            #expect(JSONScanner.elementRanges(of: data, endingAt: wrong) == nil, "end \(moved) moved")
        }
    }

    private func check(_ document: Document) {
        let data = Data(document.bytes)
        let text = String(decoding: document.bytes, as: UTF8.self).debugDescription
        let members = JSONScanner.elementRanges(of: data, member: "id")
        guard let (offset, expected) = document.fault else {
            #expect(JSONScanner.elementRanges(of: data) == document.ranges, "\(text)")
            let ends = document.ranges.map { UInt32($0.upperBound) }
            #expect(JSONScanner.elementRanges(of: data, endingAt: ends) == document.ranges, "\(text)")
            #expect(members?.map(\.element) == document.ranges, "\(text)")
            #expect(members?.map(\.member) == idMembers(in: data, at: document.ranges), "\(text)")
            #expect(JSONScanner.syntaxError(in: data) == nil, "\(text)")
            return
        }
        #expect(JSONScanner.elementRanges(of: data) == nil, "\(text)")
        #expect(members == nil, "\(text)")
        let description = JSONScanner.syntaxError(in: data)?.description ?? "no error"
        #expect(description.contains("(byte \(offset)): expected \(expected), found"), "\(description) in \(text)")
    }
}

/// The value of each element's member `id`, from its tree: where it is an object that has that key once, stored
/// without escapes, and no key stored with one.
func idMembers(in data: Data, at ranges: [Range<Int>]) -> [Range<Int>?] {
    ranges.map { range in
        guard let members = JSONValue.parse(data, at: range)?.members,
            !members.contains(where: { data[$0.keyRange].contains(UInt8(ascii: "\\")) })
        else { return nil }
        let sought = members.filter { data[$0.keyRange].elementsEqual("id".utf8) }
        return sought.count == 1 ? sought[0].value.range : nil
    }
}

/// What the error message says the scan expected where bytes stop being JSON, as the scanner words it.
private enum Expected {
    static let value = "a value"
    static let afterElement = "',' or ']' after an array element"
    static let afterMember = "',' or '}' after an object member"
    static let keyOrEnd = "a key in quotes or '}'"
    static let key = "a key in quotes"
    static let colon = "':' after a key"
    static let stringEnd = "'\"' to end the string"
    static let stringCharacter = "'\"' or more of the string, in which control characters must be escaped"
    static let escape = "an escape sequence (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u)"
    static let hexDigits = "four hexadecimal digits after '\\u'"
    static let digit = "a digit"
}

/// A fault put into a string's characters.
enum StringFault: Int, CaseIterable, Sendable {
    case controlCharacter, unknownEscape, badHexDigit, cutInCharacters, cutAfterBackslash, cutInHexDigits
}

/// A byte that is no digit where a number needs one, or right after its digits.
enum NumberFault: Int, CaseIterable, Sendable {
    case afterMinus, afterPoint, afterExponent, afterDigits
}

/// Where whitespace with a control character in it goes: in an object, or before or after it in the array.
enum WhitespacePlace: Int, CaseIterable, Sendable {
    case beforeFirstKey, beforeColon, afterColon, afterValue, afterComma, beforeElement, afterElement
}

/// A JSON array made piece by piece, which knows the range of each of its elements and, once a fault is put in, the
/// first byte where the bytes stop being JSON and what the scanner expected there.
private struct Document {
    // A first element keeps faults out of the first four bytes, where a zero byte would mean UTF-16.
    private(set) var bytes = Array("[\n  0".utf8)
    private(set) var ranges = [4..<5]
    private(set) var fault: (offset: Int, expected: String)?
    /// Whether the document was cut short: nothing more is written.
    private var cut = false
    private var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// Characters of a string, each whole: ASCII, bytes above 0x7F whose low seven bits read as `"`, a control
    /// character or a space (U+00A2, U+00DC, U+00A0), longer UTF-8, and escapes.
    private static let characters = [
        "a", "Z", " ", "~", "\u{7F}", "\u{A2}", "\u{DC}", "\u{A0}", "é", "日", "🎉", "\\\"", "\\\\", "\\/", "\\b",
        "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\uD83C\\uDF89",
    ]

    /// Bytes that are no JSON whitespace: zero, and those around the whitespace ones.
    private static let controlCharacters = ["\u{0}", "\u{1}", "\u{8}", "\u{B}", "\u{C}", "\u{E}", "\u{1F}"]

    private mutating func pick(_ choices: [String]) -> String {
        choices[random.next(below: choices.count)]
    }

    private mutating func append(_ text: String) {
        if !cut { bytes += text.utf8 }
    }

    /// Notes a fault at the next byte, unless one came before.
    private mutating func expect(_ expected: String) {
        if fault == nil, !cut { fault = (bytes.count, expected) }
    }

    mutating func element(afterFaultyWhitespace faulty: Bool = false, _ build: (inout Document) -> Void) {
        append(",")
        if faulty { faultyWhitespace(expecting: Expected.value) } else { whitespace() }
        let start = bytes.count
        build(&self)
        ranges.append(start..<bytes.count)
    }

    /// Up to three elements of any kind.
    mutating func elements() {
        for _ in 0..<random.next(below: 4) {
            switch random.next(below: 4) {
            case 0: element { $0.string(length: $0.random.next(below: 30)) }
            case 1: element { $0.number(digits: 1 + $0.random.next(below: 12)) }
            case 2: element { $0.object() }
            default: element { $0.append($0.pick(["true", "false", "null", "[]", "{}", "[1, \"x\"]"])) }
            }
        }
    }

    mutating func close(trailing: Int) {
        whitespace()
        append("]")
        append(String(repeating: " ", count: trailing))
    }

    /// Whitespace as the package's files have it (a line break and indentation) or any mix, or none.
    mutating func whitespace() {
        switch random.next(below: 3) {
        case 0: append("\n" + String(repeating: " ", count: random.next(below: 21)))
        case 1: append((0..<random.next(below: 21)).map { _ in pick([" ", "\n", "\t", "\r"]) }.joined())
        default: break
        }
    }

    /// Whitespace with a control character in it, which is where the JSON stops.
    mutating func faultyWhitespace(expecting expected: String) {
        whitespace()
        expect(expected)
        append(pick(Self.controlCharacters))
        whitespace()
    }

    /// A string of `length` bytes of characters, with `fault` put in after `offset` of them, or after the first
    /// character that ends past it.
    mutating func string(length: Int, fault: (offset: Int, StringFault)? = nil) {
        append("\"")
        var written = 0
        var pending = fault
        while written < length || pending != nil {
            if let (offset, kind) = pending, written >= offset {
                put(kind)
                pending = nil
                continue
            }
            let character = pick(Self.characters.filter { $0.utf8.count <= length - written })
            append(character)
            written += character.utf8.count
        }
        append("\"")
    }

    private mutating func put(_ fault: StringFault) {
        let someHexDigits = (0..<random.next(below: 4)).map { _ in pick("0123456789abcdefABCDEF".map(String.init)) }
        switch fault {
        case .controlCharacter:
            expect(Expected.stringCharacter)
            append(pick(Self.controlCharacters))
        case .unknownEscape:
            append("\\")
            expect(Expected.escape)
            append(pick(["a", "0", "U", " ", "x", "'", "\u{1}", "é"]))
        case .badHexDigit:
            append("\\u" + someHexDigits.joined())
            expect(Expected.hexDigits)
            // The bytes around the ranges of hexadecimal digits, and others.
            append(pick(["/", ":", "@", "G", "`", "g", "\"", " "]))
        case .cutInCharacters:
            expect(Expected.stringEnd)
            cut = true
        case .cutAfterBackslash:
            append("\\")
            expect(Expected.escape)
            cut = true
        case .cutInHexDigits:
            append("\\u" + someHexDigits.joined())
            expect(Expected.hexDigits)
            cut = true
        }
    }

    /// A number whose digits run `digits` long in each of its parts, with `fault` where it says: for `afterDigits`
    /// the number must be an element of the array.
    mutating func number(digits: Int, fault: NumberFault? = nil) {
        // The bytes just below and above the digits, and others.
        let noDigit = pick(["/", ":", ",", "]", " ", "a", "\u{1}"])
        if fault == .afterMinus || random.next(below: 2) == 0 {
            append("-")
        }
        if fault == .afterMinus {
            expect(Expected.digit)
            append(noDigit)
            return
        }
        append(digits == 1 && random.next(below: 4) == 0 ? "0" : digitRun(digits))
        if fault == .afterPoint || random.next(below: 2) == 0 {
            append(".")
            if fault == .afterPoint {
                expect(Expected.digit)
                append(noDigit)
                return
            }
            append(digitRun(digits))
        }
        if fault == .afterExponent || random.next(below: 2) == 0 {
            append(pick(["e", "E", "e+", "e-", "E+", "E-"]))
            if fault == .afterExponent {
                expect(Expected.digit)
                append(noDigit)
                return
            }
            append(digitRun(digits))
        }
        if fault == .afterDigits {
            expect(Expected.afterElement)
            // Or a byte that is not UTF-8 and whose low seven bits read as a digit.
            let byte = [UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "a"), 0x01, 0xB3][random.next(below: 5)]
            if !cut { bytes.append(byte) }
        }
    }

    /// `literal` with the letter at `wrong`, if it has one there, replaced or, with `cutThere`, the document cut there.
    mutating func literal(_ literal: String, wrongAt wrong: Int, cutThere: Bool) {
        append(String(literal.prefix(wrong)))
        guard wrong < literal.count else { return }
        expect("'\(literal)'")
        if cutThere {
            cut = true
        } else {
            append(pick([String(literal.dropFirst(wrong).prefix(1)).uppercased(), "x", " ", ",", "\u{0}"]))
        }
    }

    /// Digits that do not start with a zero.
    private mutating func digitRun(_ count: Int) -> String {
        pick("123456789".map(String.init)) + (1..<count).map { _ in pick("0123456789".map(String.init)) }.joined()
    }

    /// An object of one to three members, with whitespace with a control character in it at `place`, if it is in an
    /// object; its keys picked from `keys`, stored as they are, if given, and `keyFault` in the first.
    mutating func object(
        faultyWhitespace place: WhitespacePlace? = nil, keys: [String]? = nil,
        keyFault: (offset: Int, StringFault)? = nil
    ) {
        func gap(_ here: WhitespacePlace, _ expected: String) {
            if place == here { faultyWhitespace(expecting: expected) } else { whitespace() }
        }
        append("{")
        gap(.beforeFirstKey, Expected.keyOrEnd)
        for member in 0..<(1 + random.next(below: 3)) {
            if member > 0 {
                append(",")
                gap(.afterComma, Expected.key)
            }
            if let keys {
                append("\"" + pick(keys) + "\"")
            } else if member == 0, let keyFault {
                string(length: keyFault.offset + random.next(below: 4), fault: keyFault)
            } else {
                string(length: random.next(below: 12))
            }
            gap(.beforeColon, Expected.colon)
            append(":")
            gap(.afterColon, Expected.value)
            if random.next(below: 2) == 0 {
                string(length: random.next(below: 30))
            } else {
                number(digits: 1 + random.next(below: 10))
            }
            gap(.afterValue, Expected.afterMember)
        }
        append("}")
    }
}

/// SplitMix64: the same numbers for the same seed, so that a failure can be run again.
private struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        return Int(mixed % UInt64(bound))
    }
}
