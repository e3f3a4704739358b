#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Appends encoded values to an encoded JSON array without decoding or re-encoding what it holds: in the package's
/// pretty-printed format, `[c]` appended to `[a, b]` gives the bytes of `[a, b, c]` and the file's final newline;
/// with any other valid array, valid JSON with the same values.
struct JSONArraySplice {
    private let prettyPrinted: Bool

    init(encoder: JSONEncoder) {
        prettyPrinted = encoder.outputFormatting.contains(.prettyPrinted)
    }

    /// Adds the elements of `additions`, a non-empty array the same encoder wrote, at the end of `array`, the bytes
    /// of a file that decoded as an array; returns how many bytes at its start it left as they were, for a writer to
    /// write only the rest, or `nil`, leaving `array` unchanged, if either is not in a form it knows.
    func append(_ additions: Data, to array: inout Data) -> Int? {
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), newline = UInt8(ascii: "\n")
        // The bytes of `[` and `]` in `additions`, with the newline inside each that an encoder pretty-prints.
        let margin = prettyPrinted ? 2 : 1
        // A file's bytes end with a newline, and so may a long array's, spliced from slices.
        let additions = additions[..<(additions.lastIndex(where: { !isJSONWhitespace($0) }).map { $0 + 1 }
            ?? additions.startIndex)]
        guard additions.count > 2 * margin, additions.first == open, additions.last == close,
            !prettyPrinted || (additions.dropFirst().first == newline && additions.dropLast().last == newline)
        else { return nil }

        guard let last = Self.lastByteInside(array) else { return nil }

        let unchanged = array.distance(from: array.startIndex, to: last) + 1
        array.removeSubrange(array.index(after: last)...)
        // After the last element a comma is needed, unless the file ends its array with one (Foundation's decoder
        // reads `[a, b,]`), or holds none.
        if array[last] != open, array[last] != UInt8(ascii: ",") { array.append(UInt8(ascii: ",")) }
        // The elements, in the layout the encoder gave them, and the closing `]`.
        array.append(additions.dropFirst())
        // The file's final newline too, so that it never costs a copy of the whole file to add it afterwards.
        array.append(newline)
        return unchanged
    }

    /// The values that `bytes` holds after those of `previous`, as an encoded array for the decoder to judge, when
    /// `bytes` is `previous` to the end of its last element and then a comma, so that only they need decoding;
    /// `nil` if not, or if `previous` is empty or ends with a comma (a second one would be no JSON, yet look appended).
    static func appendedValues(in bytes: Data, after previous: Data) -> Data? {
        let open = UInt8(ascii: "[")
        guard let last = Self.lastByteInside(previous), previous[last] != open, previous[last] != UInt8(ascii: ",")
        else { return nil }
        let shared = previous.distance(from: previous.startIndex, to: last) + 1
        guard bytes.count > shared, bytes.prefix(shared) == previous.prefix(shared) else { return nil }
        var comma = bytes.index(bytes.startIndex, offsetBy: shared)
        while comma < bytes.endIndex, isJSONWhitespace(bytes[comma]) { comma += 1 }
        guard comma < bytes.endIndex, bytes[comma] == UInt8(ascii: ",") else { return nil }
        return Data([open]) + bytes[bytes.index(after: comma)...]
    }

    /// The last byte but whitespace before the `]` that closes the array in `bytes` (the end of the last element, a
    /// trailing comma or the opening `[`); `nil` if `bytes` are not an array in UTF-8, the only encoding the splice
    /// writes. In UTF-16 and UTF-32 one of the first four bytes is zero, and a byte order mark is no `[`.
    private static func lastByteInside(_ bytes: Data) -> Data.Index? {
        // A zero among the first four bytes is UTF-16 or UTF-32 whatever follows, which may be one stray byte.
        guard !bytes.prefix(4).contains(0), bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "["),
            let closing = bytes.lastIndex(where: { !isJSONWhitespace($0) }), bytes[closing] == UInt8(ascii: "]")
        else { return nil }
        return bytes[..<closing].lastIndex(where: { !isJSONWhitespace($0) })
    }
}

func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}
