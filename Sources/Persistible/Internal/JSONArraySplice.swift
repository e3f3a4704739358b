import Foundation

/// Appends encoded values to an encoded JSON array without decoding or re-encoding what it already holds.
///
/// With the package's pretty-printed format, appending `[c]` to `[a, b]` gives exactly the bytes that encoding
/// `[a, b, c]` would; with any other valid array it gives valid JSON with the same values.
struct JSONArraySplice {
    private let prettyPrinted: Bool

    init(encoder: JSONEncoder) {
        prettyPrinted = encoder.outputFormatting.contains(.prettyPrinted)
    }

    /// Adds the elements of `additions` at the end of `array`, in place.
    ///
    /// - Parameters:
    ///   - additions: A non-empty array, as the same encoder wrote it.
    ///   - array: The bytes of a file that decoded as an array.
    /// - Returns: `false`, leaving `array` unchanged, if either is not in a form it knows.
    func append(_ additions: Data, to array: inout Data) -> Bool {
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), newline = UInt8(ascii: "\n")
        // The elements of `additions`, with the indentation an encoder gives them inside an array.
        let margin = prettyPrinted ? 2 : 1
        guard additions.count > 2 * margin, additions.first == open, additions.last == close else { return false }
        if prettyPrinted {
            guard additions[additions.startIndex + 1] == newline, additions[additions.endIndex - 2] == newline else {
                return false
            }
        }
        let elements = additions[(additions.startIndex + margin)..<(additions.endIndex - margin)]

        guard let closing = array.lastIndex(where: { !isJSONWhitespace($0) }), array[closing] == close,
            let last = array[..<closing].lastIndex(where: { !isJSONWhitespace($0) })
        else { return false }

        array.removeSubrange(array.index(after: last)...)
        // After the last element a comma is needed, unless the file ends its array with one (Foundation's decoder
        // reads `[a, b,]`), or holds none.
        if array[last] != open, array[last] != UInt8(ascii: ",") { array.append(UInt8(ascii: ",")) }
        if prettyPrinted { array.append(newline) }
        array.append(elements)
        if prettyPrinted { array.append(newline) }
        array.append(close)
        return true
    }
}

/// Whether `byte` is one of the four characters JSON allows between tokens.
func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}
