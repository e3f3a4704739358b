#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a stored record holds beyond the encoding of the value read from it (keys its type does not know, values it
/// read as other values), and how to carry that into the record's new encoding.
struct UnknownKeys {
    struct Member {
        var path: [String]
        var key: String
        /// As stored.
        var value: Data
    }

    /// A value that differs from its encoding as read (a scalar read as another, an array whose elements do, another
    /// kind): its parts cannot be matched with the new ones, so it is kept whole where the new value leaves it as read.
    struct WholeValue {
        var path: [String]
        var stored: JSONValue
        var known: JSONValue

        /// A scalar holds no key: a new value assigned in its place loses nothing the type does not know.
        var isScalar: Bool {
            if case .scalar = stored.kind { return true }
            return false
        }
    }

    var members: [Member] = []
    var wholeValues: [WholeValue] = []

    var isEmpty: Bool { members.isEmpty && wholeValues.isEmpty }

    private init() {}

    /// What `stored` holds that `known` lacks or holds otherwise, at every depth; a stored key that `keys` reads as
    /// a key of `known` is that key.
    init(stored: JSONValue, known: JSONValue, keys: KeyReading) {
        // `path` spells the keys as the encoding does; `read`, as the decoder reads them.
        func collect(_ stored: JSONValue, _ known: JSONValue, path: [String], read: [String], into found: inout Self) {
            switch (stored.kind, known.kind) {
            case (.object(let members), .object(let knownMembers)):
                // A key written twice is read once, from its first member: a later one holds nothing the value
                // does not, and kept it would stand for the key in a reader that takes the last.
                var matched: Set<String> = []
                for member in members {
                    if let match = knownMembers.first(where: { $0.key == member.key })
                        ?? knownMembers.first(where: { keys.same(member.key, $0.key, at: read) })
                    {
                        guard matched.insert(match.key).inserted else { continue }
                        let below = read + [keys.read(match.key, at: read)]
                        collect(member.value, match.value, path: path + [match.key], read: below, into: &found)
                    } else {
                        found.members.append(Member(path: path, key: member.key, value: member.value.text))
                    }
                }
            case (.array(let storedElements), .array(let knownElements)):
                var inside = UnknownKeys()
                var differs = storedElements.count != knownElements.count
                for (element, knownElement) in zip(storedElements, knownElements) where !differs {
                    collect(element, knownElement, path: [], read: [], into: &inside)
                    differs = !inside.isEmpty
                }
                // A set's elements are encoded in an order that changes from process to process.
                if differs, storedElements.map(\.canonical).sorted() != knownElements.map(\.canonical).sorted() {
                    found.wholeValues.append(WholeValue(path: path, stored: stored, known: known))
                }
            // The same scalar however written (`1.0` and `1`, `"\u00e9"` and `"é"`) is no change.
            case (.scalar, .scalar) where stored.text == known.text || stored.canonical == known.canonical:
                break
            default:
                found.wholeValues.append(WholeValue(path: path, stored: stored, known: known))
            }
        }
        collect(stored, known, path: [], read: [], into: &self)
    }

    /// The key paths of what a write that cannot carry these over would lose, as `[3].address.zip` or `[3].tags[]`
    /// (an array kept whole), else the record itself. `encodedWhole`: none of the stored bytes are kept, so a scalar
    /// read as another value is lost too, an empty list means nothing is lost, and the paths are sorted.
    func keyPaths(record: Int, encodedWhole: Bool = false) -> [String] {
        let named: [(path: [String], isArray: Bool)] = members.map { ($0.path + [$0.key], false) }
            + wholeValues.filter { encodedWhole || !$0.isScalar }.map { ($0.path, $0.stored.elements != nil) }
        let paths = (encodedWhole ? named.sorted { $0.path.lexicographicallyPrecedes($1.path) } : named).map {
            "[\(record)]" + $0.path.map { ".\($0)" }.joined() + ($0.isArray ? "[]" : "")
        }
        return paths.isEmpty && !encodedWhole ? ["[\(record)]"] : paths
    }

    /// `encoding`, a record's new encoding, with these keys carried over and each value kept whole put back where
    /// `encoding` holds it as read; `nil` where a key, or an array or object kept whole, has no place.
    func carried(into encoding: Data, prettyPrinted: Bool) -> Data? {
        guard let parsed = JSONValue.parse(encoding) else { return nil }
        var edits: [(range: Range<Int>, text: Data)] = []
        // Members carried into an object the new encoding leaves empty all go in at one offset, joined by commas.
        var intoEmptyObjects: [Int: Data] = [:]
        for whole in wholeValues {
            if let target = parsed.node(at: whole.path), target.text == whole.known.text {
                edits.append((target.range, whole.stored.text))
            } else if !whole.isScalar {
                return nil
            }
        }
        for member in members {
            guard let target = parsed.node(at: member.path), let siblings = target.members
            else { return nil }
            if target.member(member.key) != nil { continue }
            let separator = Data((prettyPrinted ? " : " : ":").utf8)
            let text = Data(StrictJSON.quoted(member.key).utf8) + separator + member.value
            // In the order of the keys, indented as the member it goes beside.
            if let next = siblings.first(where: { $0.key > member.key }) {
                let quote = next.keyRange.lowerBound - 1
                edits.append((quote..<quote, text + Data(",".utf8) + Self.whitespace(before: quote, in: encoding)))
            } else if let last = siblings.last {
                let end = last.value.range.upperBound
                let indent = Self.whitespace(before: last.keyRange.lowerBound - 1, in: encoding)
                edits.append((end..<end, Data(",".utf8) + indent + text))
            } else {
                let offset = target.range.lowerBound + 1
                intoEmptyObjects[offset] = intoEmptyObjects[offset].map { $0 + Data(",".utf8) + text } ?? text
            }
        }
        edits += intoEmptyObjects.map { (offset, text) in (offset..<offset, text) }
        edits.sort { $0.range.lowerBound < $1.range.lowerBound }
        // Whatever the edits, the record written must be JSON: otherwise nothing is carried, and the write throws.
        guard let result = encoding.applying(edits), JSONValue.parse(result) != nil else { return nil }
        return result
    }

    private static func whitespace(before offset: Int, in data: Data) -> Data {
        var start = offset
        while start > 0, isJSONWhitespace(data[data.startIndex + start - 1]) { start -= 1 }
        return data[offsets: start..<offset]
    }
}

// MARK: - Encoding a file whole

extension Archive {
    /// Throws `unknownKeysWouldBeLost` unless encoding `records` whole keeps all that the stored records it keeps
    /// held: for a file whose records cannot be found in its bytes (UTF-16, JSON5). `originals`: each changed record
    /// as read, by original position.
    func requireNothingLostEncodingWhole(
        _ stored: Data, isSingleValue: Bool, storedCount: Int, records: [Value], sources: [RecordSource],
        originals: [Int: Value]
    ) throws(PersistenceError) {
        var kept: [(original: Int, read: Value)] = []
        var lost: [String] = []
        for (index, source) in sources.enumerated() {
            switch source {
            case .unchanged(let original):
                kept.append((original, records[index]))
            case .changed(let original):
                // Without the value it held when read, it cannot be shown to lose nothing.
                guard let read = originals[original] else {
                    lost.append("[\(original)]")
                    continue
                }
                kept.append((original, read))
            case .new:
                continue
            }
        }
        guard !kept.isEmpty || !lost.isEmpty else { return }
        // JSON is compared here, not values: the stored bytes as they are, or as a plain decoder reads them.
        // Parsed once: the stored bytes may be the whole file.
        let storedValue = JSONValue.parse(stored)
            ?? StrictJSON.bytes(of: stored, allowingJSON5: decoder.allowsJSON5).flatMap { JSONValue.parse($0) }
        let storedRecords = isSingleValue ? storedValue.map { [$0] } : storedValue?.elements
        let knownBytes = try encode(array: kept.map(\.read))
        let known = JSONValue.parse(knownBytes)?.elements
        if let storedRecords, let known, storedRecords.count == storedCount, known.count == kept.count {
            let keys = KeyReading(decoder)
            for (position, record) in kept.enumerated() {
                lost += UnknownKeys(
                    stored: storedRecords[record.original], known: known[position], keys: keys
                ).keyPaths(record: record.original, encodedWhole: true)
            }
        } else {
            lost += kept.map { "[\($0.original)]" }
        }
        guard lost.isEmpty else { throw failure(.unknownKeysWouldBeLost(keyPaths: lost)) }
    }
}

// MARK: - Key spellings

/// Which key of a type a stored key stands for, as the archive's decoder reads it (`"user_name"` is `"userName"`
/// under `.convertFromSnakeCase`; `"cafe\u0301"` is `"café"` under any), so that a default never fills, nor a write
/// keeps, a key the record holds under another spelling. A class, so that what it learns from the decoder serves
/// the file's other records; never shared.
final class KeyReading {
    private let decoder: JSONDecoder
    private let strategy: JSONDecoder.KeyDecodingStrategy
    /// For a strategy only the decoder knows how to apply, by the key as spelled: a dictionary's `String` keys
    /// are one key for two canonically equivalent spellings, which the strategy may read apart.
    private var asked: [String: (spelled: String, read: String)] = [:]

    init(_ decoder: JSONDecoder) {
        self.decoder = decoder
        strategy = decoder.keyDecodingStrategy
    }

    /// Whether every key reads as it is spelled: keys of plain ASCII are then one key only when their bytes are.
    var readsAsSpelled: Bool {
        if case .useDefaultKeys = strategy { return true }
        return false
    }

    /// The key that `key`, unescaped, reads as in an object at `path`, the keys above it as the type reads them.
    func read(_ key: String, at path: [String]) -> String {
        switch strategy {
        case .useDefaultKeys:
            return key
        case .custom(let convert):
            return convert((path + [key]).map(PathKey.init(stringValue:))).stringValue
        default:
            // `.convertFromSnakeCase`, whose algorithm is Foundation's own: ask the decoder.
            if let known = asked[key], known.spelled.utf8.elementsEqual(key.utf8) { return known.read }
            let read = (try? JSONEncoder().encode([key: 0])).flatMap { try? decoder.decode(ReadKey.self, from: $0) }
            asked[key] = (key, read?.key ?? key)
            return read?.key ?? key
        }
    }

    /// Whether the decoder reads `a` and `b`, unescaped, as one key in an object at `path`.
    func same(_ a: String, _ b: String, at path: [String]) -> Bool {
        a == b || (!readsAsSpelled && read(a, at: path) == read(b, at: path))
    }

    private struct ReadKey: Decodable {
        var key: String?

        init(from decoder: any Decoder) throws {
            key = try decoder.container(keyedBy: PathKey.self).allKeys.first?.stringValue
        }
    }

    private struct PathKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) { self.stringValue = stringValue }

        init?(intValue: Int) { nil }
    }
}
