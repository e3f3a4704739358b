#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value as the ranges of its parts (keys read, scalars left as bytes), for unknown keys, comparison and
/// re-encoding; its bytes are kept beside it, so that a tree of a slice of a large file copies nothing.
indirect enum JSONTree {
    case object([Member], Range<Int>)
    case array([JSONTree], Range<Int>)
    case scalar(Range<Int>)

    struct Member {
        var key: String
        /// Inside the quotes, escapes as stored.
        var keyRange: Range<Int>
        var value: JSONTree
    }

    var range: Range<Int> {
        switch self {
        case .object(_, let range), .array(_, let range), .scalar(let range): return range
        }
    }

    var elements: [JSONTree]? {
        guard case .array(let elements, _) = self else { return nil }
        return elements
    }

    func member(_ key: String) -> JSONTree? {
        guard case .object(let members, _) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    func node(at path: [String]) -> JSONTree? {
        path.reduce(self) { $0?.member($1) }
    }

    /// This object, in `bytes`, without its members under `keys`: the others as stored, so that a decode of it
    /// tells what those keys mean to a type and nothing else.
    func object(in bytes: Data, without keys: Set<String>) -> Data {
        guard case .object(let members, _) = self else { return Data("{}".utf8) }
        // Each from the key's opening quote to the value's end.
        let kept = members.filter { !keys.contains($0.key) }.map {
            bytes[offsets: ($0.keyRange.lowerBound - 1)..<$0.value.range.upperBound]
        }
        return Data("{".utf8) + Data(kept.joined(separator: Data(",".utf8))) + Data("}".utf8)
    }

    /// The value, in `bytes`, written one way for each meaning it may have to a decoder: strings unescaped, numbers as
    /// their decimal value, keys sorted. Compare two as strings: Swift's `==` and `<` take a string's normal forms
    /// for one.
    func canonical(in bytes: Data) -> String {
        switch self {
        case .scalar(let range):
            let text = String(decoding: bytes[offsets: range], as: UTF8.self)
            switch text.utf8.first {
            case UInt8(ascii: "\""):
                // A lone surrogate's escape, as stored, is no string's canonical form.
                let string = JSONScanner.unescaped(text.utf8.dropFirst().dropLast())
                return string.map { StrictJSON.quoted($0) } ?? text
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                return text
            default:
                return Decimal(string: text)?.description ?? Double(text).map { "\($0)" } ?? text
            }
        case .array(let elements, _):
            return "[" + elements.map { $0.canonical(in: bytes) }.joined(separator: ",") + "]"
        case .object(let members, _):
            let written = members.sorted { $0.key < $1.key }.map {
                StrictJSON.quoted($0.key) + ":" + $0.value.canonical(in: bytes)
            }
            return "{" + written.joined(separator: ",") + "}"
        }
    }
}

extension Data {
    /// The bytes at `range`, counted from the first byte, as the scanner counts them, whatever the indices of `self`.
    subscript(offsets range: Range<Int>) -> Data {
        self[(startIndex + range.lowerBound)..<(startIndex + range.upperBound)]
    }
}

/// JSON that only a decoder reads (UTF-16 or UTF-32, a trailing comma, JSON5 when allowed), written out again as
/// strict UTF-8 JSON for the scanner: for comparison, never storage, as comments, layout and key order are lost.
/// Only the decoder's own reading of those rare forms agrees with the file's decoder on what they hold.
struct StrictJSON: Decodable {
    var text: String

    /// `data` as strict JSON, or `nil` if a decoder that allows JSON5 only when told reads no JSON there.
    static func bytes(of data: Data, allowingJSON5: Bool) -> Data? {
        let reader = JSONDecoder()
        reader.allowsJSON5 = allowingJSON5
        return (try? reader.decode(StrictJSON.self, from: data)).map { Data($0.text.utf8) }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            text = "null"
        } else if let bool = try? container.decode(Bool.self) {
            text = bool ? "true" : "false"
        } else if let number = try? container.decode(Decimal.self) {
            text = number.description
        } else if let number = try? container.decode(Double.self), number.isFinite {
            text = "\(number)"
        } else if let string = try? container.decode(String.self) {
            text = Self.quoted(string)
        } else if let array = try? container.decode([StrictJSON].self) {
            text = "[" + array.map(\.text).joined(separator: ",") + "]"
        } else {
            let object = try container.decode([String: StrictJSON].self)
            text = "{" + object.map { Self.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }

    /// `string` in quotes, escaped as the package's encoder escapes it.
    static func quoted(_ string: String) -> String {
        // Most strings need no escape, and an encoder costs far more than they do.
        guard string.utf8.contains(where: { $0 < 0x20 || "\"\\/".utf8.contains($0) }) else { return "\"\(string)\"" }
        return (try? JSONEncoder().encode(string)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\(string)\""
    }
}
