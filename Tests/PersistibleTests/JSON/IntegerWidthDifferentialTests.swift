import Foundation
import Testing

@testable import Persistible

/// Every integer width at its edges, one past them, and in the forms Foundation reads as integers, each asked for
/// by the method a container has for that width: the direct decoder gives what Foundation gives, value or error.
@Suite struct IntegerWidthDifferentialTests {
    /// How a document asks for the width: the container's own method for it, named, as synthesized code calls it,
    /// directly or through a nested container or a super decoder.
    enum Request: String, CaseIterable, Sendable {
        case keyed, keyedIfPresent, unkeyed, unkeyedIfPresent, singleValue
        case nestedKeyed, nestedUnkeyed, keyedSuperDecoder, unkeyedSuperDecoder

        /// The document that holds `number` where the request reads it.
        func document(_ number: String) -> String {
            switch self {
            case .keyed, .keyedIfPresent, .keyedSuperDecoder: #"{"v":\#(number)}"#
            case .unkeyed, .unkeyedIfPresent, .unkeyedSuperDecoder: "[\(number)]"
            case .singleValue: number
            case .nestedKeyed: #"[{"v":\#(number)}]"#
            case .nestedUnkeyed: #"{"v":[\#(number)]}"#
            }
        }
    }

    static let request = CodingUserInfoKey(rawValue: "request")!

    /// What a request read, as text: the value, or `nil`, and for `unkeyedIfPresent` where the container ended.
    struct Probe<Width: Decodable>: Decodable, Equatable {
        var read: String

        enum Key: CodingKey { case v }

        init(from decoder: any Decoder) throws {
            switch decoder.userInfo[IntegerWidthDifferentialTests.request] as! Request {
            case .keyed:
                read = "\(try Self.keyed(decoder.container(keyedBy: Key.self)))"
            case .keyedIfPresent:
                read = "\(try Self.keyedIfPresent(decoder.container(keyedBy: Key.self)) as Any)"
            case .unkeyed:
                var container = try decoder.unkeyedContainer()
                read = "\(try Self.unkeyed(&container))"
            case .unkeyedIfPresent:
                // Twice: the second asks past the end, where the index moves or not.
                var container = try decoder.unkeyedContainer()
                let first = try Self.unkeyedIfPresent(&container)
                let second = try Self.unkeyedIfPresent(&container)
                read = "\(first as Any) \(second as Any) at \(container.currentIndex)"
            case .singleValue:
                read = "\(try Self.singleValue(decoder.singleValueContainer()))"
            case .nestedKeyed:
                var container = try decoder.unkeyedContainer()
                read = "\(try Self.keyed(container.nestedContainer(keyedBy: Key.self)))"
            case .nestedUnkeyed:
                var nested = try decoder.container(keyedBy: Key.self).nestedUnkeyedContainer(forKey: .v)
                read = "\(try Self.unkeyed(&nested))"
            case .keyedSuperDecoder:
                let container = try decoder.container(keyedBy: Key.self)
                read = "\(try Self.singleValue(container.superDecoder(forKey: .v).singleValueContainer()))"
            case .unkeyedSuperDecoder:
                var container = try decoder.unkeyedContainer()
                read = "\(try Self.singleValue(container.superDecoder().singleValueContainer()))"
            }
        }

        // Each width by name: a generic call would reach the containers' generic method instead.
        static func keyed(_ container: KeyedDecodingContainer<Key>) throws -> Any {
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                if Width.self == Int128.self { return try container.decode(Int128.self, forKey: .v) }
                if Width.self == UInt128.self { return try container.decode(UInt128.self, forKey: .v) }
            }
            return switch Width.self {
            case is Int.Type: try container.decode(Int.self, forKey: .v)
            case is Int8.Type: try container.decode(Int8.self, forKey: .v)
            case is Int16.Type: try container.decode(Int16.self, forKey: .v)
            case is Int32.Type: try container.decode(Int32.self, forKey: .v)
            case is Int64.Type: try container.decode(Int64.self, forKey: .v)
            case is UInt.Type: try container.decode(UInt.self, forKey: .v)
            case is UInt8.Type: try container.decode(UInt8.self, forKey: .v)
            case is UInt16.Type: try container.decode(UInt16.self, forKey: .v)
            case is UInt32.Type: try container.decode(UInt32.self, forKey: .v)
            case is UInt64.Type: try container.decode(UInt64.self, forKey: .v)
            default: preconditionFailure("no width \(Width.self)")
            }
        }

        static func keyedIfPresent(_ container: KeyedDecodingContainer<Key>) throws -> Any? {
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                if Width.self == Int128.self { return try container.decodeIfPresent(Int128.self, forKey: .v) }
                if Width.self == UInt128.self { return try container.decodeIfPresent(UInt128.self, forKey: .v) }
            }
            return switch Width.self {
            case is Int.Type: try container.decodeIfPresent(Int.self, forKey: .v)
            case is Int8.Type: try container.decodeIfPresent(Int8.self, forKey: .v)
            case is Int16.Type: try container.decodeIfPresent(Int16.self, forKey: .v)
            case is Int32.Type: try container.decodeIfPresent(Int32.self, forKey: .v)
            case is Int64.Type: try container.decodeIfPresent(Int64.self, forKey: .v)
            case is UInt.Type: try container.decodeIfPresent(UInt.self, forKey: .v)
            case is UInt8.Type: try container.decodeIfPresent(UInt8.self, forKey: .v)
            case is UInt16.Type: try container.decodeIfPresent(UInt16.self, forKey: .v)
            case is UInt32.Type: try container.decodeIfPresent(UInt32.self, forKey: .v)
            case is UInt64.Type: try container.decodeIfPresent(UInt64.self, forKey: .v)
            default: preconditionFailure("no width \(Width.self)")
            }
        }

        static func unkeyed(_ container: inout any UnkeyedDecodingContainer) throws -> Any {
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                if Width.self == Int128.self { return try container.decode(Int128.self) }
                if Width.self == UInt128.self { return try container.decode(UInt128.self) }
            }
            return switch Width.self {
            case is Int.Type: try container.decode(Int.self)
            case is Int8.Type: try container.decode(Int8.self)
            case is Int16.Type: try container.decode(Int16.self)
            case is Int32.Type: try container.decode(Int32.self)
            case is Int64.Type: try container.decode(Int64.self)
            case is UInt.Type: try container.decode(UInt.self)
            case is UInt8.Type: try container.decode(UInt8.self)
            case is UInt16.Type: try container.decode(UInt16.self)
            case is UInt32.Type: try container.decode(UInt32.self)
            case is UInt64.Type: try container.decode(UInt64.self)
            default: preconditionFailure("no width \(Width.self)")
            }
        }

        static func unkeyedIfPresent(_ container: inout any UnkeyedDecodingContainer) throws -> Any? {
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                if Width.self == Int128.self { return try container.decodeIfPresent(Int128.self) }
                if Width.self == UInt128.self { return try container.decodeIfPresent(UInt128.self) }
            }
            return switch Width.self {
            case is Int.Type: try container.decodeIfPresent(Int.self)
            case is Int8.Type: try container.decodeIfPresent(Int8.self)
            case is Int16.Type: try container.decodeIfPresent(Int16.self)
            case is Int32.Type: try container.decodeIfPresent(Int32.self)
            case is Int64.Type: try container.decodeIfPresent(Int64.self)
            case is UInt.Type: try container.decodeIfPresent(UInt.self)
            case is UInt8.Type: try container.decodeIfPresent(UInt8.self)
            case is UInt16.Type: try container.decodeIfPresent(UInt16.self)
            case is UInt32.Type: try container.decodeIfPresent(UInt32.self)
            case is UInt64.Type: try container.decodeIfPresent(UInt64.self)
            default: preconditionFailure("no width \(Width.self)")
            }
        }

        static func singleValue(_ container: any SingleValueDecodingContainer) throws -> Any {
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                if Width.self == Int128.self { return try container.decode(Int128.self) }
                if Width.self == UInt128.self { return try container.decode(UInt128.self) }
            }
            return switch Width.self {
            case is Int.Type: try container.decode(Int.self)
            case is Int8.Type: try container.decode(Int8.self)
            case is Int16.Type: try container.decode(Int16.self)
            case is Int32.Type: try container.decode(Int32.self)
            case is Int64.Type: try container.decode(Int64.self)
            case is UInt.Type: try container.decode(UInt.self)
            case is UInt8.Type: try container.decode(UInt8.self)
            case is UInt16.Type: try container.decode(UInt16.self)
            case is UInt32.Type: try container.decode(UInt32.self)
            case is UInt64.Type: try container.decode(UInt64.self)
            default: preconditionFailure("no width \(Width.self)")
            }
        }
    }

    /// The numbers to try for `Width`: its edges and one past them, and the forms of a number that are integers or
    /// not, spelled as Foundation reads them or refuses them.
    static func numbers<Width: FixedWidthInteger>(_ width: Width.Type) -> [String] {
        let (lowest, highest) = ("\(Width.min)", "\(Width.max)")
        let belowLowest = Width.isSigned ? "-" + incremented(String(lowest.dropFirst())) : "-1"
        let aboveHighest = incremented(highest)
        return [
            lowest, highest, belowLowest, aboveHighest, lowest + ".0", highest + ".0", aboveHighest + ".0",
            highest + "e0", belowLowest + "e0", "0", "-0", "-0.0", "0.0", "0e5", "1", "-1", "1e2", "1E2", "1e+2",
            "-1e2", "1.0", "-1.0", "1.5", "100e-2", "1e-2", "12.7e1", "1.0000000000000001", "1e18", "1e19", "1e20",
            "1e38", "1e39", "1" + String(repeating: "0", count: 40), "-" + String(repeating: "9", count: 25),
            "null", "\"1\"", "true", "[]", "{}",
        ] + everyEdge
    }

    /// The edges of every width, which each other width reads or refuses: 19 digits and more take other paths.
    static let everyEdge: [String] = {
        var edges = ["\(Int8.min)", "\(Int8.max)", "\(UInt8.max)", "\(Int16.min)", "\(Int16.max)", "\(UInt16.max)"]
        edges += ["\(Int32.min)", "\(Int32.max)", "\(UInt32.max)", "\(Int64.min)", "\(Int64.max)", "\(UInt64.max)"]
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            edges += ["\(Int128.min)", "\(Int128.max)", "\(UInt128.max)"]
        }
        return edges
    }()

    /// One more than the decimal `digits`.
    static func incremented(_ digits: String) -> String {
        var result = Array(digits.utf8)
        var index = result.count - 1
        while index >= 0, result[index] == UInt8(ascii: "9") {
            result[index] = UInt8(ascii: "0")
            index -= 1
        }
        if index < 0 { result.insert(UInt8(ascii: "1"), at: 0) } else { result[index] += 1 }
        return String(decoding: result, as: UTF8.self)
    }

    /// Each number as `Width` through each request, in arrays and dictionaries of it, and as an optional; the
    /// disagreements, described.
    static func differences<Width: FixedWidthInteger & Decodable & Equatable>(_ width: Width.Type) -> [String] {
        var differences: [String] = []
        func compare<T: Decodable & Equatable>(_ type: T.Type, _ json: String, _ request: Request? = nil) {
            let decoder = JSONDecoder()
            if let request { decoder.userInfo[Self.request] = request }
            let data = Data(json.utf8)
            if let difference = DirectDecoderDifferentialTests.difference(decoding: type, from: data, with: decoder) {
                differences.append("\(Width.self) \(request?.rawValue ?? "\(T.self)") \(json): \(difference)")
            }
        }
        for number in numbers(width) {
            for request in Request.allCases {
                compare(Probe<Width>.self, request.document(number), request)
            }
            compare([Width].self, "[0,\(number)]")
            compare([String: Width].self, #"{"k":\#(number)}"#)
            compare(Width?.self, number)
        }
        // The edges read as themselves, so that two decoders refusing alike cannot pass for two that agree.
        for number in ["\(Width.min)", "\(Width.max)"] {
            for request in Request.allCases {
                let decoder = JSONDecoder()
                decoder.userInfo[Self.request] = request
                let json = request.document(number)
                let read = try? decoder.decodeDirectly(Probe<Width>.self, from: Data(json.utf8)).read
                if read?.contains(number) != true {
                    differences.append("\(Width.self) \(request.rawValue) \(json): read \(read ?? "nothing")")
                }
            }
        }
        // Where there is nothing to read.
        let nothing: [(Request, String)] = [
            (.keyed, "{}"), (.keyedIfPresent, "{}"), (.unkeyed, "[]"), (.unkeyedIfPresent, "[]"), (.nestedKeyed, "[]"),
            (.nestedUnkeyed, #"{"v":[]}"#), (.keyedSuperDecoder, "{}"), (.unkeyedSuperDecoder, "[]"),
        ]
        for (request, json) in nothing {
            compare(Probe<Width>.self, json, request)
        }
        return differences
    }

    @Test func everyIntegerWidthReadsItsEdgesAsFoundationDoes() {
        var differences: [String] = []
        differences += Self.differences(Int.self) + Self.differences(Int8.self) + Self.differences(Int16.self)
        differences += Self.differences(Int32.self) + Self.differences(Int64.self) + Self.differences(UInt.self)
        differences += Self.differences(UInt8.self) + Self.differences(UInt16.self) + Self.differences(UInt32.self)
        differences += Self.differences(UInt64.self)
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            differences += Self.differences(Int128.self) + Self.differences(UInt128.self)
        }
        let count = differences.count
        #expect(count == 0, "\(differences.prefix(10).joined(separator: "\n"))")
    }

    /// A decoder that, as a Foundation from before the 128-bit integers, refuses them: where the direct decoder asks
    /// it for one number alone, the whole document gets its answer, not a claim that the bytes are not JSON.
    final class DecoderWithoutWideIntegers: JSONDecoder, @unchecked Sendable {
        override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *),
                T.self == Int128.self || T.self == UInt128.self
            {
                let description = "Decoder has not implemented support for \(T.self)"
                throw DecodingError.typeMismatch(T.self, .init(codingPath: [], debugDescription: description))
            }
            return try super.decode(type, from: data)
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func aNumberTheDecoderWillNotConvertAloneGetsItsAnswerForTheWholeDocument() {
        let decoder = DecoderWithoutWideIntegers()
        decoder.userInfo[Self.request] = Request.keyed
        // Exponents, fractions and more than 19 digits are what the direct decoder asks Foundation to convert.
        for number in ["1e2", "1.0", "12345678901234567890123", "1.5"] {
            let data = Data(#"{"v":\#(number)}"#.utf8)
            let whole = Result { try decoder.decode(Probe<Int128>.self, from: data) }.map(\.read)
            let direct = Result { try decoder.decodeDirectly(Probe<Int128>.self, from: data) }.map(\.read)
            #expect("\(direct)" == "\(whole)", "\(number)")
        }
    }
}
