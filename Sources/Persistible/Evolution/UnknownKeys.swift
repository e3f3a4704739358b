import Foundation

/// The keys of a stored record that its type does not know, and the stored values it read as other values, and how
/// to carry them into the record's new encoding.
///
/// Nothing here needs the value read to have been decoded from the stored record: any value whose encoding is
/// compared with the stored bytes works, such as a stored form converted to another model and back.
struct UnknownKeys {
    /// A key to add to the object at `path` of the new encoding, with its stored value.
    struct Member {
        var path: [String]
        var key: String
        var value: Range<Int>
    }

    /// A value at `path` that differs from the encoding of the value read from it: a scalar read as another value
    /// (a lenient decoding that reads a string it does not know as a fallback case, a number with fewer digits), an
    /// array that holds unknown keys in its elements, or elements the type dropped or read as other values, or a
    /// value of another kind than the type reads (an object read as a string). Kept whole, as stored, where the new
    /// value leaves its encoding as it was read, since its parts cannot otherwise be matched with the stored ones.
    struct WholeValue {
        var path: [String]
        var stored: JSONTree
        var known: Range<Int>

        /// A scalar holds no key: a new value assigned in its place loses nothing the type does not know, so it
        /// stands.
        var isScalar: Bool {
            if case .scalar = stored { return true }
            return false
        }
    }

    var members: [Member] = []
    var wholeValues: [WholeValue] = []

    var isEmpty: Bool { members.isEmpty && wholeValues.isEmpty }

    private init() {}

    /// What `stored` holds that `known`, the encoding of the value read from it, lacks or holds otherwise, at every
    /// depth.
    ///
    /// - Parameters:
    ///   - storedBytes: The bytes the `stored` ranges point into.
    ///   - knownBytes: The bytes the `known` ranges point into.
    ///   - keys: How the decoder reads keys: a stored key it reads as a key of `known` is that key, whatever its
    ///     spelling, and gives way to it rather than being kept beside it.
    init(stored: JSONTree, known: JSONTree, storedBytes: Data, knownBytes: Data, keys: KeyReading) {
        collect(stored, known, path: [], read: [], bytes: (storedBytes, knownBytes), keys: keys)
    }

    /// - Parameters:
    ///   - path: Where `known` is, as its encoding spells the keys.
    ///   - read: The same keys as the decoder reads them.
    private mutating func collect(
        _ stored: JSONTree, _ known: JSONTree, path: [String], read: [String], bytes: (stored: Data, known: Data),
        keys: KeyReading
    ) {
        switch (stored, known) {
        case (.object(let members, _), .object(let knownMembers, _)):
            for member in members {
                if let match = knownMembers.first(where: { $0.key == member.key })
                    ?? knownMembers.first(where: { keys.same(member.key, $0.key, at: read) })
                {
                    let readKey = keys.read(match.key, at: read)
                    collect(
                        member.value, match.value, path: path + [match.key], read: read + [readKey], bytes: bytes,
                        keys: keys
                    )
                } else {
                    self.members.append(Member(path: path, key: member.key, value: member.value.range))
                }
            }
        case (.array(let storedElements, _), .array(let knownElements, _)):
            // Elements cannot be matched by key: one the type dropped (a lenient decoding that skips values it
            // does not know) or read as another value leaves the stored array different from its re-encoding.
            var inside = UnknownKeys()
            var differs = storedElements.count != knownElements.count
            for (element, knownElement) in zip(storedElements, knownElements) where !differs {
                inside.collect(element, knownElement, path: [], read: [], bytes: bytes, keys: keys)
                differs = !inside.isEmpty
            }
            if differs, JSONTree.sameInAnyOrder(storedElements, in: bytes.stored, knownElements, in: bytes.known) {
                differs = false
            }
            if differs {
                wholeValues.append(WholeValue(path: path, stored: stored, known: known.range))
            }
        case (.scalar, .scalar) where stored.means(known, in: bytes.stored, bytes.known):
            break
        default:
            // A scalar read as another value, or an object read as an array or a scalar, or the other way round.
            wholeValues.append(WholeValue(path: path, stored: stored, known: known.range))
        }
    }

    /// The key paths of what a write that cannot carry these over would lose, as `[3].address.zip`, for errors:
    /// an array kept whole ends in `[]`. A scalar is not named, as a new value assigned in its place loses nothing;
    /// the record itself is named when nothing else is.
    ///
    /// - Parameter encodedWhole: Whether the record is encoded anew with none of its stored bytes kept, so that a
    ///   scalar read as another value is lost too, and nothing at all when nothing is named. The paths are then in
    ///   the order of their keys.
    func keyPaths(record: Int, encodedWhole: Bool = false) -> [String] {
        let named: [(path: [String], isArray: Bool)] = members.map { ($0.path + [$0.key], false) }
            + wholeValues.filter { encodedWhole || !$0.isScalar }.map { ($0.path, $0.stored.elements != nil) }
        let paths = (encodedWhole ? named.sorted { $0.path.lexicographicallyPrecedes($1.path) } : named).map {
            "[\(record)]" + $0.path.map { ".\($0)" }.joined() + ($0.isArray ? "[]" : "")
        }
        return paths.isEmpty && !encodedWhole ? ["[\(record)]"] : paths
    }

    /// The new encoding with these keys carried over from `storedBytes`, and each value kept whole put back as
    /// stored where the new encoding holds it as it was read; `nil` where a key, or an array or object kept whole,
    /// has no place in it.
    ///
    /// A scalar kept whole whose new encoding differs from the one read was assigned by the write: the new value
    /// stands, as the write meant, and nothing the type does not know goes with the old one.
    ///
    /// - Parameters:
    ///   - encoding: The record's new encoding.
    ///   - knownBytes: The bytes the `known` ranges point into.
    ///   - prettyPrinted: Whether to indent what is inserted as the encoder does.
    func carried(
        into encoding: Data, storedBytes: Data, knownBytes: Data, prettyPrinted: Bool
    ) -> Data? {
        guard let tree = JSONTree.parse(encoding) else { return nil }
        var edits: [(range: Range<Int>, text: Data)] = []
        // Members carried into an object the new encoding leaves empty all go in at one offset, joined by commas.
        var intoEmptyObjects: [Int: Data] = [:]
        for whole in wholeValues {
            if let target = tree.node(at: whole.path),
                encoding[offsets: target.range] == knownBytes[offsets: whole.known]
            {
                edits.append((target.range, storedBytes[offsets: whole.stored.range]))
            } else if !whole.isScalar {
                return nil
            }
        }
        for member in members {
            guard let target = tree.node(at: member.path), case .object(let siblings, let range) = target
            else { return nil }
            if target.member(member.key) != nil { continue }
            var text = Data(StrictJSON.quoted(member.key).utf8)
            text.append(Data((prettyPrinted ? " : " : ":").utf8))
            text.append(storedBytes[offsets: member.value])
            if let next = siblings.first(where: { $0.key > member.key }) {
                let quote = next.keyRange.lowerBound - 1
                text.append(UInt8(ascii: ","))
                text.append(Self.whitespace(before: quote, in: encoding))
                edits.append((quote..<quote, text))
            } else if let last = siblings.last {
                let end = last.value.range.upperBound
                var inserted = Data(",".utf8)
                inserted.append(Self.whitespace(before: last.keyRange.lowerBound - 1, in: encoding))
                inserted.append(text)
                edits.append((end..<end, inserted))
            } else if var joined = intoEmptyObjects[range.lowerBound + 1] {
                joined.append(UInt8(ascii: ","))
                joined.append(text)
                intoEmptyObjects[range.lowerBound + 1] = joined
            } else {
                intoEmptyObjects[range.lowerBound + 1] = text
            }
        }
        for (offset, text) in intoEmptyObjects {
            edits.append((offset..<offset, text))
        }
        edits.sort { $0.range.lowerBound < $1.range.lowerBound }
        var result = Data()
        var copied = 0
        for edit in edits {
            guard edit.range.lowerBound >= copied else { return nil }
            result.append(encoding[offsets: copied..<edit.range.lowerBound])
            result.append(edit.text)
            copied = edit.range.upperBound
        }
        result.append(encoding[offsets: copied..<encoding.count])
        // Whatever the edits, the record written must be JSON: otherwise nothing is carried, and the write throws.
        guard JSONTree.parse(result) != nil else { return nil }
        return result
    }

    /// The whitespace between the previous comma or brace and `offset`: a member's indentation.
    private static func whitespace(before offset: Int, in data: Data) -> Data {
        var start = offset
        while start > 0, isJSONWhitespace(data[data.startIndex + start - 1]) { start -= 1 }
        return data[(data.startIndex + start)..<(data.startIndex + offset)]
    }
}
