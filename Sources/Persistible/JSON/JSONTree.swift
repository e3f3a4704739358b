import Foundation

/// A JSON value as the ranges of its parts in its bytes: objects with their keys, read and where they stand, arrays,
/// and scalars left as bytes.
///
/// One parse serves everything that works on the parts of a record rather than on the record whole: finding what a
/// stored record holds beyond the encoding of the value read from it, and putting that into a new encoding. The
/// bytes are kept beside the tree, not in it, so that a tree of a slice of a large file copies nothing; ranges count
/// from the first byte of those bytes.
indirect enum JSONTree {
    case object([Member], Range<Int>)
    case array([JSONTree], Range<Int>)
    case scalar(Range<Int>)

    struct Member {
        var key: String
        /// The key's characters, inside the quotes, escapes as stored.
        var keyRange: Range<Int>
        var value: JSONTree
    }

    /// The tree of the value at `range` of `data`, or of the one value `data` holds; `nil` if it is not JSON.
    static func parse(_ data: Data, at range: Range<Int>? = nil) -> JSONTree? {
        JSONScanner.tree(of: data, at: range)
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

    /// This object, in `bytes`, without its members under `keys`: the others as stored, so that a decode of it
    /// tells what those keys mean to a type and nothing else.
    func object(in bytes: Data, without keys: Set<String>) -> Data {
        var object = Data("{".utf8)
        guard case .object(let members, _) = self else { return object + Data("}".utf8) }
        for member in members where !keys.contains(member.key) {
            if object.count > 1 { object.append(UInt8(ascii: ",")) }
            // From the key's opening quote to the value's end.
            object.append(bytes[((member.keyRange.lowerBound - 1)..<member.value.range.upperBound)
                .shifted(by: bytes.startIndex)])
        }
        return object + Data("}".utf8)
    }

    /// What a scalar means to a decoder, however it is written: `1.0` and `1` are one number, `"\u00e9"` and `"é"`
    /// one string.
    enum Scalar: Hashable {
        case null, bool(Bool), number(Decimal), string(String)
        /// A number beyond `Decimal`'s range.
        case double(Double)

        /// The scalar `bytes` hold, or `nil` if they are no scalar JSON the scanner read.
        init?(_ bytes: Data) {
            switch bytes.first {
            case UInt8(ascii: "\""):
                guard let string = JSONScanner.unescaped(bytes.dropFirst().dropLast()) else { return nil }
                self = .string(string)
            case UInt8(ascii: "t"): self = .bool(true)
            case UInt8(ascii: "f"): self = .bool(false)
            case UInt8(ascii: "n"): self = .null
            case _?:
                let text = String(decoding: bytes, as: UTF8.self)
                if let number = Decimal(string: text) {
                    self = .number(number)
                } else if let number = Double(text) {
                    self = .double(number)
                } else {
                    return nil
                }
            case nil: return nil
            }
        }
    }

    /// Whether this value, in `bytes`, means what `other`, in `otherBytes`, does: the same scalars however written,
    /// the same elements in the same order, the same keys in any order.
    func means(_ other: JSONTree, in bytes: Data, _ otherBytes: Data) -> Bool {
        switch (self, other) {
        case (.scalar(let range), .scalar(let otherRange)):
            let scalar = bytes[range.shifted(by: bytes.startIndex)]
            let otherScalar = otherBytes[otherRange.shifted(by: otherBytes.startIndex)]
            if scalar.elementsEqual(otherScalar) { return true }
            guard let meaning = Scalar(scalar) else { return false }
            return meaning == Scalar(otherScalar)
        case (.array(let elements, _), .array(let otherElements, _)):
            return elements.count == otherElements.count
                && zip(elements, otherElements).allSatisfy { $0.means($1, in: bytes, otherBytes) }
        case (.object(let members, _), .object(let otherMembers, _)):
            return members.count == otherMembers.count && members.allSatisfy { member in
                other.member(member.key)?.means(member.value, in: otherBytes, bytes) ?? false
            }
        default:
            return false
        }
    }

    /// A hash that values meaning the same (see `means(_:in:_:)`) share.
    func meaningHash(in bytes: Data) -> Int {
        var hasher = Hasher()
        switch self {
        case .scalar(let range):
            let scalar = bytes[range.shifted(by: bytes.startIndex)]
            if let meaning = Scalar(scalar) { hasher.combine(meaning) } else { hasher.combine(scalar) }
        case .array(let elements, _):
            hasher.combine(elements.count)
            for element in elements { hasher.combine(element.meaningHash(in: bytes)) }
        case .object(let members, _):
            // Keys in any order hash alike.
            var sum = 0
            for member in members {
                var memberHasher = Hasher()
                memberHasher.combine(member.key)
                memberHasher.combine(member.value.meaningHash(in: bytes))
                sum &+= memberHasher.finalize()
            }
            hasher.combine(sum)
        }
        return hasher.finalize()
    }

    /// Whether `elements`, in `bytes`, are the values of `others`, in `otherBytes`, in some order: a set's elements
    /// are encoded in an order that changes from process to process.
    static func sameInAnyOrder(
        _ elements: [JSONTree], in bytes: Data, _ others: [JSONTree], in otherBytes: Data
    ) -> Bool {
        guard elements.count == others.count else { return false }
        var unmatched: [Int: [JSONTree]] = [:]
        for other in others { unmatched[other.meaningHash(in: otherBytes), default: []].append(other) }
        for element in elements {
            let hash = element.meaningHash(in: bytes)
            guard let match = unmatched[hash]?.firstIndex(where: { element.means($0, in: bytes, otherBytes) }) else {
                return false
            }
            unmatched[hash]?.remove(at: match)
        }
        return true
    }
}

/// JSON in a form that the scanner does not read and a decoder does (UTF-16 or UTF-32, a trailing comma, JSON5 when
/// allowed), written out again as strict UTF-8 JSON, which it reads.
///
/// Only a decoder's own reading of those forms agrees with the file's decoder on what they hold. Such files are rare,
/// and never spliced, so the cost of a decode falls on them alone. Comments, layout and the order of keys are not
/// kept: what is written out serves comparison, never storage.
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
        guard string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
            || $0 == UInt8(ascii: "/") })
        else { return "\"\(string)\"" }
        return (try? JSONEncoder().encode(string)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\(string)\""
    }
}
