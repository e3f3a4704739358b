#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A document of strict JSON as the scanner checked it: a copy of its bytes beside the map of where its containers
/// end and its members lie, from which the decoder and ``JSONValue`` read values without checking or walking the
/// bytes around them again. A class: the copy lives as long as a decoder that a type keeps. **Not `Sendable`: one
/// thread reads it.**
class JSONDocument {
    final let bytes: UnsafeRawBufferPointer
    /// Where a `null` lies after the copied bytes: for a `superDecoder(forKey:)` whose key is missing, and to stop
    /// a walk past the last value without a bounds check.
    final let nullValue: Int
    @exclusivity(unchecked) final var map: DocumentMap
    /// The last string or number read, so that the container around it skips it without reading it again.
    @exclusivity(unchecked) final var lastValueRead = (start: -1, end: 0)

    /// `nil` unless `data` holds one value of strict JSON (``JSONScanner/map(ofStrictJSON:)``).
    init?(_ data: Data) {
        guard let map = JSONScanner.map(ofStrictJSON: data) else { return nil }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count + 4, alignment: 8)
        data.copyBytes(to: copy.bindMemory(to: UInt8.self), count: data.count)
        nullValue = data.count
        copy[nullValue..<(nullValue + 4)].copyBytes(from: "null".utf8)
        bytes = UnsafeRawBufferPointer(copy)
        self.map = map
    }

    deinit {
        bytes.deallocate()
    }

    final func bytes(in range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[range])
    }

    final func skipWhitespace(from offset: Int) -> Int {
        var index = offset
        while isJSONWhitespace(bytes[index]) {
            index += 1
            if bytes[index - 1] == UInt8(ascii: "\n") { index = JSONScanner.endOfSpaces(in: bytes, from: index) }
        }
        return index
    }

    /// The characters of the string whose opening quote is at `offset`, and whether any is escaped.
    final func stringCharacters(at offset: Int) -> (characters: Range<Int>, escaped: Bool) {
        // Checked already, the characters end at the first quote after an even run of backslashes: a word at a time
        // to each quote, noting the backslashes before it, and the last few bytes one at a time.
        var (index, backslashes) = (offset + 1, UInt64(0))
        while true {
            index = JSONScanner.endOfWords(in: bytes, from: index) { word in
                let quotes = JSONScanner.zeroBytes(in: word ^ 0x2222_2222_2222_2222)
                // Those below the first quote: a flag above it may be a borrow's.
                backslashes |= JSONScanner.zeroBytes(in: word ^ 0x5C5C_5C5C_5C5C_5C5C) & ((quotes & (0 &- quotes)) &- 1)
                return quotes
            }
            while bytes[index] != UInt8(ascii: "\"") {
                backslashes |= bytes[index] == UInt8(ascii: "\\") ? 1 : 0
                index += 1
            }
            var run = 0
            while bytes[index - 1 - run] == UInt8(ascii: "\\") { run += 1 }
            if run % 2 == 0 { return ((offset + 1)..<index, backslashes != 0) }
            index += 1
        }
    }

    /// Where the value at `offset` ends.
    final func endOfValue(at offset: Int) -> Int {
        if offset == lastValueRead.start { return lastValueRead.end }
        switch bytes[offset] {
        case UInt8(ascii: "\""):
            return stringCharacters(at: offset).characters.upperBound + 1
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return map.end(ofContainerAt: offset)
        case UInt8(ascii: "t"), UInt8(ascii: "n"):
            return offset + 4
        case UInt8(ascii: "f"):
            return offset + 5
        default:
            var index = offset + 1
            while case let byte = bytes[index], byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: ".")
                || byte | 0x20 == UInt8(ascii: "e") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            {
                index += 1
            }
            return index
        }
    }

    /// Calls `body` with each member of an object from the map's `first` on, in order, and its place among them.
    final func forEachMember(from first: Int, _ body: (Int, DocumentMap.Member) throws -> Void) rethrows {
        var (index, position) = (first, 0)
        while index >= 0 {
            let member = map.members[index]
            try body(position, member)
            (index, position) = (member.next, position + 1)
        }
    }

    /// Where the element after the one at `offset` starts, or the closing bracket after the last.
    final func element(after offset: Int) -> Int {
        let index = skipWhitespace(from: endOfValue(at: offset))
        return bytes[index] == UInt8(ascii: ",") ? skipWhitespace(from: index + 1) : index
    }
}

/// A value of a ``JSONDocument``, its parts read from the map as they are asked for: for unknown keys, comparison
/// and re-encoding. Its ranges count from where the document lies in the bytes it was read from.
struct JSONValue {
    private let document: JSONDocument
    private let start: Int
    private let base: Int

    enum Kind {
        case object([Member])
        case array([JSONValue])
        case scalar
    }

    struct Member {
        var key: String
        /// Inside the quotes, escapes as stored.
        var keyRange: Range<Int>
        var value: JSONValue
    }

    /// The value that `data` holds, or its bytes at `range`; `nil` unless they hold one value of strict JSON (a
    /// byte order mark aside) whose keys each spell a string.
    static func parse(_ data: Data, at range: Range<Int>? = nil) -> JSONValue? {
        var range = range ?? 0..<data.count
        if data[offsets: range].starts(with: [0xEF, 0xBB, 0xBF]) { range = (range.lowerBound + 3)..<range.upperBound }
        guard let document = JSONDocument(data[offsets: range]),
            document.map.members.allSatisfy({ member in
                let key = document.bytes(in: member.key)
                return !key.contains(UInt8(ascii: "\\")) || JSONScanner.unescaped(key) != nil
            })
        else { return nil }
        return JSONValue(document: document, start: document.skipWhitespace(from: 0), base: range.lowerBound)
    }

    var range: Range<Int> { (base + start)..<(base + document.endOfValue(at: start)) }

    /// The value's bytes as stored.
    var text: Data { Data(document.bytes(in: start..<document.endOfValue(at: start))) }

    var kind: Kind {
        switch document.bytes[start] {
        case UInt8(ascii: "{"): .object(members ?? [])
        case UInt8(ascii: "["): .array(elements ?? [])
        default: .scalar
        }
    }

    /// An object's members, in order; `nil` for any other value.
    var members: [Member]? {
        guard document.bytes[start] == UInt8(ascii: "{") else { return nil }
        var members: [Member] = []
        document.forEachMember(from: document.map.object(at: start).firstMember) { _, member in
            // `parse` found that each key spells a string.
            let key = JSONScanner.unescaped(document.bytes(in: member.key))!
            let value = JSONValue(document: document, start: member.value, base: base)
            members.append(Member(key: key, keyRange: member.key.shifted(by: base), value: value))
        }
        return members
    }

    /// An array's elements, in order; `nil` for any other value.
    var elements: [JSONValue]? {
        guard document.bytes[start] == UInt8(ascii: "[") else { return nil }
        var (elements, index) = ([JSONValue](), document.skipWhitespace(from: start + 1))
        while document.bytes[index] != UInt8(ascii: "]") {
            elements.append(JSONValue(document: document, start: index, base: base))
            index = document.element(after: index)
        }
        return elements
    }

    func member(_ key: String) -> JSONValue? {
        members?.first { $0.key == key }?.value
    }

    func node(at path: [String]) -> JSONValue? {
        path.reduce(self) { $0?.member($1) }
    }

    /// This object without its members under `keys`: the others as stored, so that a decode of it tells what those
    /// keys mean to a type and nothing else.
    func object(without keys: Set<String>) -> Data {
        // Each from the key's opening quote to the value's end.
        let kept = (members ?? []).filter { !keys.contains($0.key) }.map {
            Data(document.bytes(in: ($0.keyRange.lowerBound - 1 - base)..<($0.value.range.upperBound - base)))
        }
        return Data("{".utf8) + Data(kept.joined(separator: Data(",".utf8))) + Data("}".utf8)
    }

    /// The value written one way for each meaning it may have to a decoder: strings unescaped, numbers as their
    /// decimal value, keys sorted. Compare two as strings: Swift's `==` and `<` take a string's normal forms for one.
    var canonical: String {
        switch kind {
        case .scalar:
            let text = String(decoding: self.text, as: UTF8.self)
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
        case .array(let elements):
            return "[" + elements.map(\.canonical).joined(separator: ",") + "]"
        case .object(let members):
            let written = members.sorted { $0.key < $1.key }.map {
                StrictJSON.quoted($0.key) + ":" + $0.value.canonical
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
