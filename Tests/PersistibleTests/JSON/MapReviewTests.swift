import Foundation
import Testing

@testable import Persistible

// Review probes for the document map: member chains, plain-key flags, array counts, container ends found by a step
// search from the last found index. Each probe decodes the same bytes with Foundation and with `decodeDirectly` and
// compares a transcript of everything a type asked and got (values and errors, with paths and descriptions).

/// A key of any spelling.
private struct MKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { (stringValue, self.intValue) = ("\(intValue)", intValue) }
}

private func describe(_ error: any Error) -> String {
    // Inside `init(from:)` a number that does not fit is Foundation's internal `JSONError` and the direct decoder's
    // `NotValidJSON`; both become the same `DecodingError` at the top (see `caughtNumberErrorsDifferInType`).
    guard error is DecodingError else { return "(not a DecodingError)" }
    return DirectDecoderDifferentialTests.describe(error)
}

private func scalars(_ string: String) -> String {
    string.unicodeScalars.map { $0.isASCII && $0.value > 0x20 ? String($0) : "U+\(String($0.value, radix: 16))" }
        .joined()
}

/// One step of a script, run against a keyed or unkeyed container.
private enum MStep: Sendable {
    // Keyed.
    case contains(String), int(String), intIfPresent(String), string(String), isNil(String), allKeys
    case nestedKeyed(String, [MStep]), nestedUnkeyed(String, [MStep]), superKeyed(String, [MStep])
    case superValue(String)
    case anyValue(String)
    // Unkeyed.
    case count, atEnd, next, nextIfPresent, nextNil, nextString, nextKeyed([MStep]), nextUnkeyed([MStep])
    case nextSuper([MStep]), nextAny
    /// Anything, on either kind.
    case custom(@Sendable (inout any UnkeyedDecodingContainer) throws -> String)
    case customKeyed(@Sendable (KeyedDecodingContainer<MKey>) throws -> String)
}

/// A type that runs the script in `userInfo` and records what happened.
private struct MScript: Decodable, CustomStringConvertible {
    static let key = CodingUserInfoKey(rawValue: "script")!
    static let unkeyed = CodingUserInfoKey(rawValue: "unkeyed")!
    var log: [String] = []
    var description: String { log.joined(separator: "\n") }

    init(from decoder: any Decoder) throws {
        let steps = decoder.userInfo[Self.key] as! [MStep]
        if decoder.userInfo[Self.unkeyed] as? Bool == true {
            var container = try decoder.unkeyedContainer()
            Self.run(steps, on: &container, into: &log)
        } else {
            let container = try decoder.container(keyedBy: MKey.self)
            Self.run(steps, on: container, into: &log)
        }
    }

    static func record<T>(_ log: inout [String], _ label: String, _ body: () throws -> T) {
        do {
            log.append("\(label) = \(try body())")
        } catch {
            log.append("\(label) ! \(describe(error))")
        }
    }

    static func run(_ steps: [MStep], on container: KeyedDecodingContainer<MKey>, into log: inout [String]) {
        log.append("path \(container.codingPath.map(\.stringValue))")
        for step in steps {
            switch step {
            case .contains(let k): record(&log, "contains \(scalars(k))") { container.contains(MKey(stringValue: k)) }
            case .int(let k): record(&log, "int \(scalars(k))") { try container.decode(Int.self, forKey: MKey(stringValue: k)) }
            case .intIfPresent(let k):
                record(&log, "int? \(scalars(k))") {
                    "\(try container.decodeIfPresent(Int.self, forKey: MKey(stringValue: k)) as Any)"
                }
            case .string(let k):
                record(&log, "string \(scalars(k))") { try container.decode(String.self, forKey: MKey(stringValue: k)) }
            case .isNil(let k):
                record(&log, "nil \(scalars(k))") { try container.decodeNil(forKey: MKey(stringValue: k)) }
            case .allKeys:
                log.append("allKeys \(container.allKeys.map(\.stringValue).sorted().map(scalars))")
            case .nestedKeyed(let k, let inner):
                do {
                    let nested = try container.nestedContainer(keyedBy: MKey.self, forKey: MKey(stringValue: k))
                    log.append("nestedKeyed \(scalars(k)) {")
                    run(inner, on: nested, into: &log)
                    log.append("}")
                } catch { log.append("nestedKeyed \(scalars(k)) ! \(describe(error))") }
            case .nestedUnkeyed(let k, let inner):
                do {
                    var nested = try container.nestedUnkeyedContainer(forKey: MKey(stringValue: k))
                    log.append("nestedUnkeyed \(scalars(k)) [")
                    run(inner, on: &nested, into: &log)
                    log.append("]")
                } catch { log.append("nestedUnkeyed \(scalars(k)) ! \(describe(error))") }
            case .superKeyed(let k, let inner):
                do {
                    let decoder = try container.superDecoder(forKey: MKey(stringValue: k))
                    log.append("super \(scalars(k)) path \(decoder.codingPath.map(\.stringValue))")
                    run(inner, on: try decoder.container(keyedBy: MKey.self), into: &log)
                } catch { log.append("super \(scalars(k)) ! \(describe(error))") }
            case .superValue(let k):
                record(&log, "superValue \(scalars(k))") {
                    let decoder = try container.superDecoder(forKey: MKey(stringValue: k))
                    return "\(try decoder.singleValueContainer().decode(MAny.self))"
                }
            case .anyValue(let k):
                record(&log, "any \(scalars(k))") { "\(try container.decode(MAny.self, forKey: MKey(stringValue: k)))" }
            case .customKeyed(let body):
                record(&log, "custom") { try body(container) }
            default:
                log.append("(unkeyed step on keyed)")
            }
        }
    }

    static func run(_ steps: [MStep], on container: inout any UnkeyedDecodingContainer, into log: inout [String]) {
        log.append("path \(container.codingPath.map(\.stringValue)) count \(container.count as Any)")
        for step in steps {
            let index = container.currentIndex
            switch step {
            case .count: log.append("count \(container.count as Any)")
            case .atEnd: log.append("atEnd \(container.isAtEnd)")
            case .next: record(&log, "next@\(index)") { try container.decode(Int.self) }
            // Through the generic requirement: `decodeIfPresent(Int.self)` at the end differs, see
            // `unkeyedDecodeIfPresentOfAScalarAtTheEndDoesNotMoveTheIndex`.
            case .nextIfPresent: record(&log, "next?@\(index)") { "\(try container.decodeIfPresent(MInt.self) as Any)" }
            case .nextNil: record(&log, "nil@\(index)") { try container.decodeNil() }
            case .nextString: record(&log, "string@\(index)") { try container.decode(String.self) }
            case .nextAny: record(&log, "any@\(index)") { "\(try container.decode(MAny.self))" }
            case .custom(let body): record(&log, "custom@\(index)") { try body(&container) }
            case .nextKeyed(let inner):
                do {
                    let nested = try container.nestedContainer(keyedBy: MKey.self)
                    log.append("nestedKeyed@\(index) {")
                    run(inner, on: nested, into: &log)
                    log.append("}")
                } catch { log.append("nestedKeyed@\(index) ! \(describe(error))") }
            case .nextUnkeyed(let inner):
                do {
                    var nested = try container.nestedUnkeyedContainer()
                    log.append("nestedUnkeyed@\(index) [")
                    run(inner, on: &nested, into: &log)
                    log.append("]")
                } catch { log.append("nestedUnkeyed@\(index) ! \(describe(error))") }
            case .nextSuper(let inner):
                do {
                    let decoder = try container.superDecoder()
                    log.append("super@\(index) path \(decoder.codingPath.map(\.stringValue))")
                    var nested = try decoder.unkeyedContainer()
                    run(inner, on: &nested, into: &log)
                } catch { log.append("super@\(index) ! \(describe(error))") }
            default:
                log.append("(keyed step on unkeyed)")
            }
            log.append("  -> index \(container.currentIndex) atEnd \(container.isAtEnd)")
        }
    }
}

/// An `Int` read through a single value container, so that `decodeIfPresent` takes the generic requirement.
private struct MInt: Decodable, CustomStringConvertible {
    var value: Int
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    var description: String { "\(value)" }
}

/// Any JSON value, read through containers only, objects by `allKeys` (sorted) and `decode(forKey:)`.
private indirect enum MAny: Decodable, CustomStringConvertible {
    case null, bool(Bool), number(Double), string(String), array([MAny], Int?), object([(String, MAny)])

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: MKey.self) {
            var members: [(String, MAny)] = []
            for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                members.append((key.stringValue, try container.decode(MAny.self, forKey: key)))
            }
            self = .object(members)
        } else if var container = try? decoder.unkeyedContainer() {
            var elements: [MAny] = []
            let count = container.count
            while !container.isAtEnd { elements.append(try container.decode(MAny.self)) }
            self = .array(elements, count)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let n): "\(n)"
        case .string(let s): "\"\(scalars(s))\""
        case .array(let a, let count): "[#\(count as Any) " + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o): "{" + o.map { "\(scalars($0)):\($1)" }.joined(separator: ",") + "}"
        }
    }
}

@Suite struct MapReviewTests {
    static func outcome<T>(_ decode: () throws -> T) -> String {
        do {
            let value = try decode()
            if let dictionary = value as? [String: Any] {
                return "value \(dictionary.map { "\(scalars($0.key)):\($0.value)" }.sorted())"
            }
            return "value \(value)"
        } catch {
            return describe(error)
        }
    }

    @discardableResult
    func expectSame<T: Decodable>(
        _ type: T.Type, _ data: Data, _ configure: (JSONDecoder) -> Void = { _ in },
        foldingEquivalentSpellings: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let decoder = JSONDecoder()
        configure(decoder)
        var foundation = Self.outcome { try decoder.decode(type, from: data) }
        var direct = Self.outcome { try decoder.decodeDirectly(type, from: data) }
        if foldingEquivalentSpellings {
            // See `snakeCaseListsOneSpellingOfEquivalentKeysForAllObjects`.
            func fold(_ text: String) -> String {
                text.replacingOccurrences(of: "U+212a", with: "K").replacingOccurrences(of: "eU+301", with: "U+e9")
            }
            (foundation, direct) = (fold(foundation), fold(direct))
        }
        if direct != foundation, let dump = ProcessInfo.processInfo.environment["MAP_REVIEW_DUMP"] {
            let entry = "=====\n\(String(decoding: data, as: UTF8.self))\n--- foundation\n\(foundation)\n--- direct\n\(direct)\n"
            if let handle = FileHandle(forWritingAtPath: dump) {
                handle.seekToEndOfFile()
                handle.write(Data(entry.utf8))
                try? handle.close()
            } else {
                try? Data(entry.utf8).write(to: URL(fileURLWithPath: dump))
            }
        }
        let (f, d) = (foundation.split(separator: "\n"), direct.split(separator: "\n"))
        let line = (0..<min(f.count, d.count)).first { f[$0] != d[$0] } ?? min(f.count, d.count)
        #expect(
            direct == foundation,
            "\(String(decoding: data.prefix(400), as: UTF8.self).debugDescription)\nAT LINE \(line)\nFOUNDATION: \(line < f.count ? f[line] : "<end>")\nDIRECT:     \(line < d.count ? d[line] : "<end>")",
            sourceLocation: sourceLocation
        )
        return direct == foundation
    }

    @discardableResult
    func expectSame<T: Decodable>(
        _ type: T.Type, _ json: String, _ configure: (JSONDecoder) -> Void = { _ in },
        foldingEquivalentSpellings: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        expectSame(
            type, Data(json.utf8), configure, foldingEquivalentSpellings: foldingEquivalentSpellings,
            sourceLocation: sourceLocation
        )
    }

    @discardableResult
    fileprivate func expectScript(
        _ json: String, _ steps: [MStep], unkeyed: Bool = false, snake: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        expectSame(MScript.self, json, {
            $0.userInfo[MScript.key] = steps
            $0.userInfo[MScript.unkeyed] = unkeyed
            if snake { $0.keyDecodingStrategy = .convertFromSnakeCase }
        }, foldingEquivalentSpellings: snake, sourceLocation: sourceLocation)
    }
}

// MARK: - Random documents and scripts

private struct MGen {
    var random: SplitMix64

    /// Key spellings as stored (JSON, without quotes).
    static let storedKeys = [
        "a", "\\u0061", "b", "K", "\u{212A}", "\\u212a", "\\u212A", "é", "e\u{301}", "\\u00e9", "e\\u0301", "",
        "abcdefg", "abcdefgh", "abcdefgi", "abcdefg\\u0068", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnoq",
        "abcdefghijklmnopq", "abcdefghijklmnopr", "abcdefghijklmno\\u0070q", "foo_bar", "fooBar", "_x_", "a__b",
        "1", "01", "k\\\"", "k\\\\", "\\/", "x y", "😀", "\\ud83d\\ude00",
    ]
    /// Names asked for.
    static let askedKeys = [
        "a", "b", "K", "\u{212A}", "é", "e\u{301}", "", "abcdefg", "abcdefgh", "abcdefgi", "abcdefghi",
        "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmnopq", "abcdefghijklmnopr", "foo_bar", "fooBar", "_x_",
        "a__b", "aB", "x", "1", "01", "k\"", "k\\", "/", "x y", "😀", "missing", "abcdefgh\u{0}", "A",
    ]

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
    mutating func pick<T>(_ c: [T]) -> T { c.randomElement(using: &random)! }
    mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &random) }

    mutating func space() -> String { chance(0.3) ? pick([" ", "\n  ", "\t", " \r\n "]) : "" }

    mutating func value(depth: Int) -> String {
        let kind = depth > 3 ? int(0...3) : int(0...6)
        switch kind {
        case 0: return "\(int(-5...99))"
        case 1: return pick(["null", "true", "\"s\"", "\"\\u0031\"", "1.5", "\"[{\"", "false"])
        case 2: return pick(["[]", "{}", "[ ]", "{ }", "[\n]", "{\n  }"])
        case 3: return "\(int(0...9))"
        case 4, 5: return object(depth: depth)
        default: return array(depth: depth)
        }
    }

    mutating func object(depth: Int, members: Int? = nil) -> String {
        let count = members ?? (chance(0.1) ? int(40...70) : int(0...6))
        if count == 0 { return "{" + space() + "}" }
        let parts = (0..<count).map { _ in
            space() + "\"" + pick(Self.storedKeys) + "\"" + space() + ":" + space() + value(depth: depth + 1) + space()
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    mutating func array(depth: Int) -> String {
        let count = int(0...6)
        if count == 0 { return "[" + space() + "]" }
        return "[" + (0..<count).map { _ in space() + value(depth: depth + 1) + space() }.joined(separator: ",") + "]"
    }

    mutating func keyedSteps(depth: Int) -> [MStep] {
        (0..<int(1...8)).map { _ in
            let key = pick(Self.askedKeys)
            switch depth > 2 ? int(0...6) : int(0...11) {
            case 0: return .contains(key)
            case 1: return .int(key)
            case 2: return .intIfPresent(key)
            case 3: return .string(key)
            case 4: return .isNil(key)
            case 5: return .allKeys
            case 6: return .anyValue(key)
            case 7: return .superValue(key)
            case 8: return .nestedKeyed(key, keyedSteps(depth: depth + 1))
            case 9: return .nestedUnkeyed(key, unkeyedSteps(depth: depth + 1))
            case 10: return .superKeyed(key, keyedSteps(depth: depth + 1))
            default: return .contains(key)
            }
        }
    }

    mutating func unkeyedSteps(depth: Int) -> [MStep] {
        (0..<int(1...8)).map { _ in
            switch depth > 2 ? int(0...7) : int(0...10) {
            case 0: return .count
            case 1: return .atEnd
            case 2: return .next
            case 3: return .nextIfPresent
            case 4: return .nextNil
            case 5: return .nextString
            case 6, 7: return .nextAny
            case 8: return .nextKeyed(keyedSteps(depth: depth + 1))
            case 9: return .nextUnkeyed(unkeyedSteps(depth: depth + 1))
            default: return .nextSuper(unkeyedSteps(depth: depth + 1))
            }
        }
    }
}

extension MapReviewTests {
    @Test(arguments: 0..<4)
    func randomObjectsAskedByRandomScripts(seed: Int) {
        var gen = MGen(random: SplitMix64(seed: 0xAB0 + UInt64(seed)))
        var failures = 0
        for _ in 0..<700 where failures < 5 {
            let json = gen.space() + gen.object(depth: 0) + gen.space()
            let steps = gen.keyedSteps(depth: 0)
            if !expectScript(json, steps, snake: seed % 2 == 1) { failures += 1 }
            if !expectSame(MAny.self, json) { failures += 1 }
            if !expectSame([String: MAny].self, json) { failures += 1 }
            // Which of two wrong values a dictionary names differs by design (Foundation: its hashing order).
            if !expectSameSuccess([String: Int].self, json) { failures += 1 }
            if !expectSameSuccess([String: String?].self, json) { failures += 1 }
        }
    }

    @Test(arguments: 0..<2)
    func randomArraysAskedByRandomScripts(seed: Int) {
        var gen = MGen(random: SplitMix64(seed: 0xCD0 + UInt64(seed)))
        var failures = 0
        for _ in 0..<800 where failures < 5 {
            let json = gen.space() + gen.array(depth: 0) + gen.space()
            let steps = gen.unkeyedSteps(depth: 0)
            if !expectScript(json, steps, unkeyed: true, snake: seed == 1) { failures += 1 }
        }
    }
}

// MARK: - Differences the review found: two mended, one by design (a known issue)

extension MapReviewTests {
    /// `UnkeyedDecodingContainer.decodeIfPresent` of a scalar at the end: Foundation moves `currentIndex` on, which
    /// the protocol's own default for each scalar does not, so the next error names the index Foundation names.
    @Test func unkeyedDecodeIfPresentOfAScalarAtTheEndMovesTheIndexAsFoundationDoes() {
        expectScript("[]", [.custom { c in "\(try c.decodeIfPresent(Int.self) as Any) \(c.currentIndex)" }, .next],
            unkeyed: true)
        expectScript("[1]", [.next, .custom { c in "\(try c.decodeIfPresent(String.self) as Any) \(c.currentIndex)" }],
            unkeyed: true)
        expectScript("[]", [.custom { c in "\(try c.decodeIfPresent(UInt8.self) as Any) \(c.currentIndex)" }, .next],
            unkeyed: true)
        // The generic requirement.
        expectScript("[]", [.custom { c in "\(try c.decodeIfPresent(MInt.self) as Any) \(c.currentIndex)" }, .next],
            unkeyed: true)
    }

    /// Under `.convertFromSnakeCase` every key is read through `KeyReading`, whose cache must not hand one
    /// spelling's reading to a canonically equivalent other: Foundation lists each object's own spelling.
    @Test func snakeCaseListsEachObjectsOwnSpellingOfEquivalentKeys() {
        for json in ["{\"K\":1,\"o\":{\"\u{212A}\":2}}", "{\"é\":1,\"o\":{\"e\u{301}\":2}}", #"{"é":1,"o":{"e\u0301":2}}"#] {
            expectSame(MAny.self, json) { $0.keyDecodingStrategy = .convertFromSnakeCase }
            expectSame(MAny.self, json)
        }
    }

    /// Inside `init(from:)` a number that the type cannot hold is thrown as Foundation's internal `JSONError` by
    /// Foundation, as `DirectDecoding.NotValidJSON` by the direct decoder; a type that catches and inspects it sees
    /// two different errors (at the top both become the same `dataCorrupted`). By design, noted for completeness.
    @Test func caughtNumberErrorsDifferInType() {
        let inspect: MStep = .customKeyed { c in
            do { return "\(try c.decode(Int.self, forKey: MKey(stringValue: "a")))" } catch {
                return "\(type(of: error))"
            }
        }
        withKnownIssue("a caught number error is not a DecodingError in either, and not the same type") {
            expectSameRaw(MScript.self, #"{"a":1.5}"#) { $0.userInfo[MScript.key] = [inspect] }
        } when: {
            // With `PERSISTIBLE_DECODER=foundation` both sides are Foundation's.
            DirectDecoding.isEnabled
        }
        expectSame(Int.self, "1.5")
        expectSame([String: Int].self, #"{"a":1e400}"#)
    }

    /// The same value, or both an error.
    @discardableResult
    func expectSameSuccess<T: Decodable>(_ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let data = Data(json.utf8)
        let foundation = Result { try JSONDecoder().decode(type, from: data) }
        let direct = Result { try JSONDecoder().decodeDirectly(type, from: data) }
        let same = switch (foundation, direct) {
        case (.failure, .failure): true
        case (.success(let a), .success(let b)): "\(a)" == "\(b)" || Self.outcome { a } == Self.outcome { b }
        default: false
        }
        #expect(same, "\(json)\n\(Self.outcome { try foundation.get() })\n\(Self.outcome { try direct.get() })",
            sourceLocation: sourceLocation)
        return same
    }

    /// As `expectSame`, but errors compared by their full text.
    @discardableResult
    func expectSameRaw<T: Decodable>(
        _ type: T.Type, _ json: String, _ configure: (JSONDecoder) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let decoder = JSONDecoder()
        configure(decoder)
        let data = Data(json.utf8)
        let foundation = Self.outcome { try decoder.decode(type, from: data) }
        let direct = Self.outcome { try decoder.decodeDirectly(type, from: data) }
        #expect(direct == foundation, sourceLocation: sourceLocation)
        return direct == foundation
    }
}

// MARK: - Sizes, distances and depths

/// Reads the arrays under `a` and `b` in alternation, element by element, each element an object read through a
/// nested container (so that the container ends are looked up far apart), then counts and skips.
private struct MAlternating: Decodable, Equatable {
    var log: [String] = []
    enum Keys: String, CodingKey { case a, b }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var a = try container.nestedUnkeyedContainer(forKey: .a)
        var b = try container.nestedUnkeyedContainer(forKey: .b)
        var again = try container.nestedUnkeyedContainer(forKey: .a)
        log.append("counts \(a.count as Any) \(b.count as Any)")
        while !a.isAtEnd || !b.isAtEnd {
            for (name, index) in [("a", 0), ("b", 1)] {
                if index == 0 ? a.isAtEnd : b.isAtEnd { continue }
                do {
                    let element = index == 0
                        ? try a.nestedContainer(keyedBy: MKey.self) : try b.nestedContainer(keyedBy: MKey.self)
                    var inner = try element.nestedUnkeyedContainer(forKey: MKey(stringValue: "v"))
                    let id = try element.decode(Int.self, forKey: MKey(stringValue: "id"))
                    let last = try inner.decode(Int.self)
                    log.append("\(name)\(id):\(inner.count as Any):\(last)")
                } catch {
                    log.append("\(name) ! \(describe(error))")
                    // Foundation and direct both leave the index where it was on a failed nested container.
                    if index == 0 { _ = try? a.decode(MAny.self) } else { _ = try? b.decode(MAny.self) }
                }
                // Every 7th, the same position of the other list read a second time through `again`.
                if log.count % 7 == 0, !again.isAtEnd { log.append("again \(try again.decode(MAny.self))") }
            }
        }
        log.append("end \(a.currentIndex) \(b.currentIndex) \(again.currentIndex)")
    }
}

private struct MElementByElement: Decodable, Equatable {
    var log: [String] = []
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        log.append("count \(container.count as Any)")
        while !container.isAtEnd {
            let index = container.currentIndex
            switch index % 4 {
            case 0:
                var nested = try container.nestedUnkeyedContainer()
                log.append("\(index) [\(nested.count as Any)] \(nested.isAtEnd ? "-" : "\(try nested.decode(MAny.self))")")
            case 1:
                let decoder = try container.superDecoder()
                var nested = try decoder.unkeyedContainer()
                log.append("\(index) super [\(nested.count as Any)] \(decoder.codingPath.map(\.stringValue))")
                while !nested.isAtEnd { _ = try nested.decode(MAny.self) }
            case 2:
                log.append("\(index) \(try container.decode([Int].self).count)")
            default:
                log.append("\(index) \(try container.decode(MAny.self))")
            }
        }
    }
}

extension MapReviewTests {
    @Test func longArraysAroundTheReservation() {
        for count in [0, 1, 4095, 4096, 4097, 9000] {
            let ints = (0..<count).map { "\($0 % 97)" }
            for separator in [",", " , ", ",\n  "] {
                let json = "[" + ints.joined(separator: separator) + "]"
                expectSame([Int].self, json)
                expectSame([Double].self, json)
                expectSame([Int8].self, json)
                expectSame([Int?].self, json)
                expectSame([MInt].self, json)
                expectScript(json, [.count, .next, .count, .nextAny, .atEnd, .count], unkeyed: true)
            }
            let strings = "[" + (0..<count).map { "\"s\($0 % 13)\"" }.joined(separator: ",") + "]"
            expectSame([String].self, strings)
            expectSame([String?].self, strings)
            expectSame([[String]].self, "[" + strings + ",[]," + strings + "]")
            // A wrong element last.
            if count > 0 {
                expectSame([Int].self, "[" + ints.dropLast().joined(separator: ",") + (count > 1 ? "," : "") + "\"x\"]")
                expectSame([[Int]].self, "[[],[" + ints.joined(separator: ",") + "],[1,null]]")
            }
        }
    }

    @Test func twoBigArraysReadInAlternation() {
        for (countA, countB) in [(0, 0), (1, 3), (50, 50), (700, 300), (2500, 2500)] {
            func element(_ id: Int, _ prefix: String) -> String {
                let inner = (0..<(id % 5)).map { "\($0)" }.joined(separator: ",")
                return "{\"\(prefix)\":[[],{}],\"v\":[\(inner)],\"id\":\(id)}"
            }
            let a = (0..<countA).map { element($0, "pa") }.joined(separator: ",")
            let b = (0..<countB).map { element($0, "pb") }.joined(separator: ",\n")
            let json = "{\"a\":[\(a)],\"mid\":[[[]]],\"b\":[\(b)]}"
            expectSame(MAlternating.self, json)
            expectSame(MElementByElement.self, "[" + [a, b].filter { !$0.isEmpty }.joined(separator: ",") + "]")
        }
        // Element-by-element over arrays, some empty, some with whitespace.
        var parts: [String] = []
        for i in 0..<3000 {
            parts.append(i % 3 == 0 ? "[ ]" : i % 3 == 1 ? "[\n  [1], {\"x\": [ ]} ]" : "[1, 2 ,3]")
        }
        expectSame(MElementByElement.self, "[" + parts.joined(separator: ",") + "]")
        expectSame(MAny.self, "[" + parts.joined(separator: ",") + "]")
    }

    @Test func nestingAround512Levels() {
        for depth in [510, 511, 512, 513] {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            expectSame(MAny.self, arrays)
            expectSame(MElementByElement.self, arrays)
            let objects = String(repeating: "{\"a\":", count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
            expectSame(MAny.self, objects)
            let mixed = String(repeating: "[{\"k\":", count: depth / 2) + "1" + String(repeating: "}]", count: depth / 2)
            expectSame(MAny.self, mixed)
            expectSame(MAny.self, " " + mixed + " ")
            let wrong = String(repeating: "[{\"k\":", count: depth / 2) + "[1,\"x\"]" + String(repeating: "}]", count: depth / 2)
            expectSame(MAny.self, wrong)
        }
    }

    @Test func manyMembersAskedInEveryOrderAndTwice() {
        for count in [16, 17, 50, 64, 200] {
            var members = (0..<count).map { "\"k\($0)\":\($0)" }
            // Duplicates at the start, the middle and the end, and one escaped, one with a nested object between.
            members.insert("\"k\(count / 2)\":-1", at: count - 1)
            members.insert("\"k0\":{\"k0\":-2,\"k1\":[{\"k1\":-3}]}", at: count / 3)
            members.append("\"k1\":-4")
            for escaped in [false, true] {
                var list = members
                if escaped { list.insert("\"\\u006b2\":-5", at: 1) }
                let json = "{" + list.joined(separator: ",") + "}"
                let keys = (0..<(count + 2)).map { "k\($0)" }
                var steps: [MStep] = keys.reversed().flatMap { [MStep.intIfPresent($0), .int($0), .contains($0)] }
                steps += keys.map { MStep.anyValue($0) } + [.allKeys, .nestedKeyed("k0", [.int("k0"), .allKeys])]
                expectScript(json, steps)
                expectScript(json, steps, snake: true)
                expectSame([String: MAny].self, json)
            }
        }
    }

    @Test func emptyContainersWithWhitespaceAndKeyLengths() {
        for empty in ["{}", "{ }", "{\n}", "{\t\r\n }", "[]", "[ ]", "[\n    ]", "[\r\n\t]"] {
            expectScript("{\"e\":\(empty),\"f\":[\(empty), \(empty)]}", [
                .nestedKeyed("e", [.allKeys, .contains(""), .int("")]),
                .nestedUnkeyed("e", [.count, .atEnd, .next]),
                .nestedUnkeyed("f", [.count, .nextUnkeyed([.count, .atEnd]), .nextKeyed([.allKeys]), .count]),
                .superKeyed("e", [.allKeys]),
            ])
            expectSame([String: [Int]].self, "{\"a\":\(empty)}")
            expectSame([[String: Int]].self, "[\(empty),\(empty)]")
        }
        let base = "abcdefghijklmnopqrstu"
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 20] {
            let key = String(base.prefix(length))
            // Neighbours of the same length differing in the first, last and a middle byte; prefixes and extensions.
            var others = [key + "x", String(key.dropLast()), key + "\u{0}"]
            if length > 0 {
                others.append("Z" + key.dropFirst())
                others.append(key.dropLast() + "Z")
                others.append(key.prefix(length / 2) + "Z" + key.dropFirst(length / 2 + 1))
            }
            for order in [others + [key], [key] + others] {
                let json = "{" + order.enumerated().map { "\"\($1.replacingOccurrences(of: "\u{0}", with: "\\u0000"))\":\($0)" }
                    .joined(separator: ",") + "}"
                let steps = ([key] + others).flatMap { [MStep.int($0), .contains($0)] } + [.allKeys]
                expectScript(json, steps)
                expectSame([String: Int].self, json)
            }
        }
    }

    @Test func keysThatAreNotTextInObjectsReadOrSkipped() {
        let lone = #"{"\ud800":1,"a":2}"#
        let invalid = Data(#"{""#.utf8) + Data([0xFF]) + Data(#"":1,"a":2}"#.utf8)
        for data in [Data(lone.utf8), invalid] {
            expectSame([String: Int].self, data)
            expectSame(DirectDecoderTests.Only.self, data)
            expectSame(MAny.self, data)
            expectSame(MAlternatingSkip.self, Data(#"{"x":"#.utf8) + data + Data(#","a":"y"}"#.utf8))
        }
    }
}

private struct MAlternatingSkip: Decodable, Equatable {
    var a: String
}

extension MapReviewTests {
    @Test func superDecoderOfTheKeySuperPresentMissingAndRepeated() {
        let read: MStep = .customKeyed { c in
            let decoder = try c.superDecoder()
            let nested = try decoder.container(keyedBy: MKey.self)
            return "\(decoder.codingPath.map(\.stringValue)) \(nested.allKeys.map(\.stringValue).sorted()) "
                + "\(try nested.decode(Int.self, forKey: MKey(stringValue: "a")))"
        }
        for json in [#"{"super":{"a":1}}"#, #"{"super":{"a":1},"super":{"a":2}}"#, #"{"s\u0075per":{"a":3},"super":4}"#,
            #"{"x":1}"#, #"{"super":null}"#, #"{"super":[]}"#, #"{"super":{"b":1}}"#] {
            expectScript(json, [read, read, .superValue("super"), .superKeyed("super", [.int("a"), .allKeys])])
        }
    }
}
