import Foundation
import Testing

@testable import Persistible

/// Generated documents of many shapes, some with a wrong value in one random place, decoded by Foundation and by
/// the direct decoder under each configuration: the results are equal, or both throw the same error.
@Suite struct DirectDecoderDifferentialTests {
    struct Numbers: Decodable, Equatable {
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var double: Double
        var float: Float
    }

    struct Texts: Decodable, Equatable {
        var string: String
        var optionalText: String?
        var bool: Bool
        var url: URL
        var decimal: Decimal
        var date: Date
        var data: Data
    }

    struct Tree: Decodable, Equatable {
        var numbers: Numbers
        var texts: [Texts]
        var counts: [String: Int]
        var matrix: [[Double?]]
        var children: [Tree]
        var maybeNumbers: Numbers?
        // The collections that the direct decoder reads in loops of their own.
        var integers: [Int]
        var doubles: [Double]
        var strings: [String]
        var labels: [String: String]
    }

    indirect enum Shape: Sendable {
        case integer(bits: Int, signed: Bool)
        case double, float, bool, string, url, decimal, date, data
        case optional(Shape)
        case array(Shape)
        case dictionary(Shape)
        case object([(String, Shape)])
    }

    static let numbers = Shape.object([
        ("int", .integer(bits: 64, signed: true)), ("int8", .integer(bits: 8, signed: true)),
        ("int16", .integer(bits: 16, signed: true)), ("int32", .integer(bits: 32, signed: true)),
        ("int64", .integer(bits: 64, signed: true)), ("uint", .integer(bits: 64, signed: false)),
        ("uint8", .integer(bits: 8, signed: false)), ("uint16", .integer(bits: 16, signed: false)),
        ("uint32", .integer(bits: 32, signed: false)), ("uint64", .integer(bits: 64, signed: false)),
        ("double", .double), ("float", .float),
    ])

    static let texts = Shape.object([
        ("string", .string), ("optionalText", .optional(.string)), ("bool", .bool), ("url", .url),
        ("decimal", .decimal), ("date", .date), ("data", .data),
    ])

    static func tree(depth: Int) -> Shape {
        .object([
            ("numbers", numbers), ("texts", .array(texts)), ("counts", .dictionary(.integer(bits: 64, signed: true))),
            ("matrix", .array(.array(.optional(.double)))),
            ("children", .array(depth > 0 ? tree(depth: depth - 1) : .bool)),
            ("maybeNumbers", .optional(numbers)), ("integers", .array(.integer(bits: 64, signed: true))),
            ("doubles", .array(.double)), ("strings", .array(.string)), ("labels", .dictionary(.string)),
        ])
    }

    /// Writes a document of a shape, in the package's form or compact, with at most one value out of place.
    struct Writer {
        var random: SplitMix64
        var mutationChance: Double
        var mutated = false
        var snakeCaseKeys = false
        var dateForm: DateForm = .number
        var deferredData = false

        enum DateForm: Sendable { case number, iso8601 }

        mutating func chance(_ probability: Double) -> Bool {
            Double.random(in: 0..<1, using: &random) < probability
        }

        mutating func pick<T>(_ choices: [T]) -> T {
            choices.randomElement(using: &random)!
        }

        mutating func value(_ shape: Shape, depth: Int = 0) -> String {
            if !mutated, chance(mutationChance) {
                mutated = true
                return pick(["null", "true", "\"text\"", "12", "-3.5", "{}", "[]", "[1]", "{\"a\":1}", "1e400",
                             "\"\\ud800\""])
            }
            switch shape {
            case .integer(let bits, let signed):
                if chance(0.01) { return pick(["1e2", "1.0", "-0", "1.5", "0.0", "2E1", "-1", "1.0000000000000001"]) }
                // Int128 holds every edge and one past it; the platforms before it, where these tests never run,
                // get no edges.
                if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                    let edge = signed
                        ? [-(Int128(1) << (bits - 1)), (Int128(1) << (bits - 1)) - 1] : [0, (Int128(1) << bits) - 1]
                    if chance(0.01) { return "\(pick(edge) + pick([-1, 0, 0, 1]))" }
                }
                // Within ±1,000 and the type's range; the shifts stay far below Int's width.
                let magnitude = bits - (signed ? 1 : 0)
                let lowest = signed ? max(-1000, -(1 << min(magnitude, 20))) : 0
                let highest = min(1000, (1 << min(magnitude, 20)) - 1)
                return "\(Int.random(in: lowest...highest, using: &random))"
            case .double, .float:
                if chance(0.02) {
                    return pick(["0", "-0", "-0.0", "1e-400", "4.9e-324", "1.7976931348623157e308", "3.4028236e38",
                                 "0.1", "123456789.123456789", "1E+2", "9007199254740993", "2.5e-5", "1e23", "1e39"])
                }
                let value = Double.random(in: -1e6...1e6, using: &random)
                return chance(0.5) ? "\(value)" : "\(Int(value))"
            case .bool:
                return chance(0.5) ? "true" : "false"
            case .string:
                return string()
            case .url:
                if chance(0.05) { return pick(["\"\"", "\"http://exa mple.com\"", "\"relative/path\""]) }
                return pick(["\"https://example.com/a?b=c\"", "\"file:///tmp/x\"", "\"https:\\/\\/escaped.example\""])
            case .decimal:
                if chance(0.02) { return "1e200" }
                return pick(["1", "-2.5", "3.14159265358979323846264338327950288", "1e10", "-0.0001"])
            case .date:
                switch dateForm {
                case .number: return pick(["0", "1700000000", "-1.5", "1e3", "1700000000123"])
                case .iso8601:
                    if chance(0.05) { return "\"2024-13-01\"" }
                    return pick(["\"2024-02-29T12:00:00Z\"", "\"1970-01-01T00:00:00Z\""])
                }
            case .data:
                if deferredData {
                    let count = Int.random(in: 0...4, using: &random)
                    return "[" + (0..<count).map { "\($0 * 100)" }.joined(separator: ",") + "]"
                }
                if chance(0.05) { return pick(["\"not base64!\"", "\"aGVsbG8\""]) }
                return pick(["\"\"", "\"AAEC\"", "\"aGVsbG8=\"", "\"aGVs\\/bG8=\""])
            case .optional(let wrapped):
                return chance(0.3) ? "null" : value(wrapped, depth: depth)
            case .array(let element):
                let count = Int.random(in: 0...(depth > 2 ? 1 : 3), using: &random)
                return "[" + (0..<count).map { _ in value(element, depth: depth + 1) }.joined(separator: ",") + "]"
            case .dictionary(let element):
                let count = Int.random(in: 0...3, using: &random)
                let members = (0..<count).map { index in
                    "\"\(pick(["k", "snake_key", "é", "e\\u0301"]))\(index)\":" + value(element, depth: depth + 1)
                }
                return "{" + members.joined(separator: ",") + "}"
            case .object(let members):
                var written: [String] = []
                for (key, shape) in members {
                    let spelled = snakeCaseKeys ? snakeCased(key) : key
                    if !mutated, chance(mutationChance) {
                        mutated = true
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0: continue
                        case 1: written.append("\"\(spelled)\":" + value(shape, depth: depth + 1))
                        default: written.append("\"\(spelled)\":null")
                        }
                    }
                    written.append("\"\(spelled)\":" + value(shape, depth: depth + 1))
                }
                if chance(0.1) { written.insert("\"unknown\":{\"deep\":[1,\"\\\"\"]}", at: 0) }
                return "{" + written.joined(separator: ",") + "}"
            }
        }

        mutating func string() -> String {
            let pieces = ["plain", " ", "é", "日本語", "😀", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u00e9", "\\u65e5",
                          "\\ud83d\\ude00", "e\\u0301", "\\u0000", "\\b\\f\\r"]
            let count = Int.random(in: 0...6, using: &random)
            return "\"" + (0..<count).map { _ in pick(pieces) }.joined() + "\""
        }

        func snakeCased(_ key: String) -> String {
            key.reduce(into: "") { result, character in
                result += character.isUppercase ? "_" + character.lowercased() : String(character)
            }
        }
    }

    struct Configuration: Sendable {
        var name: String
        var decoder: @Sendable () -> JSONDecoder
        var snakeCaseKeys = false
        var dateForm: Writer.DateForm = .number
        var deferredData = false
    }

    static let configurations: [Configuration] = [
        Configuration(name: "default", decoder: { JSONDecoder() }),
        Configuration(name: "snake case, seconds, base64", decoder: {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        }, snakeCaseKeys: true),
        Configuration(name: "milliseconds, deferred data, strings for floats", decoder: {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            decoder.dataDecodingStrategy = .deferredToData
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "text", negativeInfinity: "-inf", nan: "nan"
            )
            return decoder
        }, deferredData: true),
        Configuration(name: "iso8601, custom keys", decoder: {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            decoder.keyDecodingStrategy = .custom { path in
                DirectCodingKey(stringValue: path.last!.stringValue.replacingOccurrences(of: "_", with: ""))
            }
            return decoder
        }, dateForm: .iso8601),
    ]

    @Test(arguments: configurations.indices)
    func generatedDocumentsDecodeAsFoundationDecodesThem(configuration index: Int) throws {
        let configuration = Self.configurations[index]
        var random = SplitMix64(seed: UInt64(index) + 26)
        var failures = 0
        var decoded = 0
        for document in 0..<600 {
            var writer = Writer(random: random, mutationChance: document % 4 == 0 ? 0 : 0.03)
            writer.snakeCaseKeys = configuration.snakeCaseKeys
            writer.dateForm = configuration.dateForm
            writer.deferredData = configuration.deferredData
            let shape = document % 3 == 0 ? Shape.array(Self.tree(depth: 1)) : Self.tree(depth: 2)
            let text = writer.value(shape)
            random = writer.random
            let data = Data(text.utf8)
            let decoder = configuration.decoder()
            let difference = document % 3 == 0
                ? Self.difference(decoding: [Tree].self, from: data, with: decoder)
                : Self.difference(decoding: Tree.self, from: data, with: decoder)
            let decodes = document % 3 == 0
                ? (try? decoder.decode([Tree].self, from: data)) != nil
                : (try? decoder.decode(Tree.self, from: data)) != nil
            if decodes {
                decoded += 1
            }
            if let difference {
                failures += 1
                if failures <= 3 { Issue.record("\(configuration.name), document \(document): \(difference)\n\(text)") }
            }
        }
        #expect(failures == 0)
        // Both outcomes are common enough to be compared often.
        #expect(decoded > 100 && decoded < 500, "\(decoded) of 600 documents decode")
    }

    /// How the two decoders disagree on `data`; `nil` if they agree.
    static func difference<T: Decodable & Equatable>(
        decoding type: T.Type, from data: Data, with decoder: JSONDecoder
    ) -> String? {
        let foundation = Result { try decoder.decode(type, from: data) }
        let direct = Result { try decoder.decodeDirectly(type, from: data) }
        switch (foundation, direct) {
        case (.success(let expected), .success(let actual)):
            return expected == actual ? nil : "values differ:\n\(expected)\n\(actual)"
        case (.failure(let expected), .failure(let actual)):
            let (expectedText, actualText) = (describe(expected), describe(actual))
            return expectedText == actualText ? nil : "errors differ:\n\(expectedText)\n\(actualText)"
        case (.success(let expected), .failure(let actual)):
            return "Foundation decoded \(expected), direct threw \(describe(actual))"
        case (.failure(let expected), .success(let actual)):
            return "Foundation threw \(describe(expected)), direct decoded \(actual)"
        }
    }

    /// An error's case, type or key, coding path and description, as a test compares them.
    static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { "\($0.stringValue)\($0.intValue.map { "#\($0)" } ?? "")" }.joined(separator: ".")
                + " \"\(context.debugDescription)\""
        }
        switch error as? DecodingError {
        case .typeMismatch(let type, let context): return "typeMismatch(\(type)) at \(path(context))"
        case .valueNotFound(let type, let context): return "valueNotFound(\(type)) at \(path(context))"
        case .keyNotFound(let key, let context): return "keyNotFound(\(key.stringValue)) at \(path(context))"
        case .dataCorrupted(let context): return "dataCorrupted at \(path(context))"
        default: return "\(error)"
        }
    }
}

/// The same documents on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
