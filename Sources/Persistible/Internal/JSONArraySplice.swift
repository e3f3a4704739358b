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

    /// `array` with the elements of `additions` added at its end, or `nil` if either is not a JSON array.
    ///
    /// - Parameters:
    ///   - additions: A non-empty array, as the same encoder wrote it.
    ///   - array: The bytes of a file that decoded as an array.
    func appending(_ additions: Data, to array: Data) -> Data? {
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), newline = UInt8(ascii: "\n")
        // The elements of `additions`, with the indentation an encoder gives them inside an array.
        let margin = prettyPrinted ? 2 : 1
        guard additions.count > 2 * margin, additions.first == open, additions.last == close else { return nil }
        if prettyPrinted {
            guard additions[additions.startIndex + 1] == newline, additions[additions.endIndex - 2] == newline else {
                return nil
            }
        }
        let elements = additions[(additions.startIndex + margin)..<(additions.endIndex - margin)]

        guard let closing = array.lastIndex(where: { !isJSONWhitespace($0) }), array[closing] == close,
            let last = array[..<closing].lastIndex(where: { !isJSONWhitespace($0) })
        else { return nil }

        var result = Data(capacity: array.count + elements.count + 4)
        result.append(array[...last])
        if array[last] != open { result.append(UInt8(ascii: ",")) }
        if prettyPrinted { result.append(newline) }
        result.append(elements)
        if prettyPrinted { result.append(newline) }
        result.append(close)
        return result
    }
}

/// Whether `byte` is one of the four characters JSON allows between tokens.
func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}
