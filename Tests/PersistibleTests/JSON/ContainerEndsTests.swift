import Foundation
import Testing

@testable import Persistible

/// The container ends that the checking scan records, which the decoder asks for in any order.
@Suite struct ContainerEndsTests {
    @Test func everyContainerEndIsFoundWhateverOrderItIsAskedIn() throws {
        var generator = SplitMix64(seed: 0xE7D5)
        for _ in 0..<40 {
            let document = Data(Self.value(depth: 0, using: &generator).utf8)
            let expected = Self.containerSpans(in: document)
            var orders = [expected, expected.reversed(), expected.shuffled(using: &generator)]
            // Far jumps back and forth, beyond the steps taken one at a time.
            orders.append(zip(expected, expected.reversed()).flatMap { [$0, $1] })
            for order in orders {
                var ends = try #require(JSONScanner.containerEnds(ofStrictJSON: document))
                for span in order {
                    #expect(ends.end(ofContainerAt: span.lowerBound) == span.upperBound)
                }
            }
        }
    }

    @Test func bytesThatAreNotStrictJSONHaveNoEnds() {
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        for text in ["\u{FEFF}[]", "[1,]", "{\"a\" 1}", "[\"open]", deep] {
            #expect(JSONScanner.containerEnds(ofStrictJSON: Data(text.utf8)) == nil, "\(text.prefix(20))")
        }
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(JSONScanner.containerEnds(ofStrictJSON: Data(deepest.utf8)) != nil)
    }

    /// A value with strings that hold brackets, braces and escaped quotes, and containers of every size.
    private static func value(depth: Int, using generator: inout SplitMix64) -> String {
        let strings = ["\"[{\"", "\"a \\\" ] }\"", "\"\\\\\"", "\"\""]
        switch depth > 4 ? 0 : Int.random(in: 0..<5, using: &generator) {
        case 0: return strings.randomElement(using: &generator) ?? ""
        case 1: return Int.random(in: -9...9, using: &generator).description
        case 2: return "[ ]"
        case 3:
            let count = Int.random(in: 0..<25, using: &generator)
            return "[" + (0..<count).map { _ in value(depth: depth + 1, using: &generator) }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0..<6, using: &generator)
            let members = (0..<count).map { "\n  \"k\($0)\" : " + value(depth: depth + 1, using: &generator) }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    /// Each container's bytes, found by matching brackets outside strings, in the order they open.
    private static func containerSpans(in document: Data) -> [Range<Int>] {
        var (spans, open, inString, escaped) = ([Range<Int>](), [Int](), false, false)
        for (offset, byte) in document.enumerated() {
            if inString {
                (inString, escaped) = (escaped || byte != UInt8(ascii: "\""), !escaped && byte == UInt8(ascii: "\\"))
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                open.append(spans.count)
                spans.append(offset..<offset)
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                let index = open.removeLast()
                spans[index] = spans[index].lowerBound..<(offset + 1)
            }
        }
        return spans
    }
}
