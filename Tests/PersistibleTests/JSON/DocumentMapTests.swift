import Foundation
import Testing

@testable import Persistible

/// The map of containers and members that the checking scan records, which the decoder asks for in any order.
@Suite struct DocumentMapTests {
    @Test func everyContainerEndIsFoundWhateverOrderItIsAskedIn() throws {
        var generator = SplitMix64(seed: 0xE7D5)
        for _ in 0..<40 {
            let document = Data(Self.value(depth: 0, using: &generator).utf8)
            let expected = Self.containerRanges(in: document).map(\.range)
            var orders = [expected, expected.reversed(), expected.shuffled(using: &generator)]
            // Far jumps back and forth, beyond the steps taken one at a time.
            orders.append(zip(expected, expected.reversed()).flatMap { [$0, $1] })
            for order in orders {
                var map = try #require(JSONScanner.map(ofStrictJSON: document))
                for container in order {
                    #expect(map.end(ofContainerAt: container.lowerBound) == container.upperBound)
                }
            }
        }
    }

    @Test func everyObjectListsItsOwnMembersInOrderWithTheirValuesAndEveryArrayCountsItsElements() throws {
        var generator = SplitMix64(seed: 0x0B1E)
        for _ in 0..<40 {
            let document = Data(Self.value(depth: 0, using: &generator).utf8)
            var map = try #require(JSONScanner.map(ofStrictJSON: document))
            for (container, count) in Self.containerRanges(in: document) {
                guard document[container.lowerBound] == UInt8(ascii: "{") else {
                    #expect(map.count(ofArrayAt: container.lowerBound) == count)
                    continue
                }
                var (index, keys) = (map.object(at: container.lowerBound).firstMember, [String]())
                while index >= 0 {
                    let member = map.members[index]
                    keys.append(String(decoding: document[member.key], as: UTF8.self))
                    // The value's first byte, after the colon and the spaces around it.
                    let before = document[member.key.upperBound..<member.value].filter { $0 != UInt8(ascii: " ") }
                    #expect(before == Data("\":".utf8) && document[member.value] != UInt8(ascii: " "))
                    index = member.next
                }
                #expect(keys == (0..<count).map { "k\($0)" })
            }
        }
    }

    @Test func bytesThatAreNotStrictJSONHaveNoEnds() {
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        for text in ["\u{FEFF}[]", "[1,]", "{\"a\" 1}", "[\"open]", deep] {
            #expect(JSONScanner.map(ofStrictJSON: Data(text.utf8)) == nil, "\(text.prefix(20))")
        }
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(JSONScanner.map(ofStrictJSON: Data(deepest.utf8)) != nil)
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

    /// Each container's bytes, found by matching brackets outside strings, in the order they open, and how many
    /// members or elements it holds.
    private static func containerRanges(in document: Data) -> [(range: Range<Int>, count: Int)] {
        var (containers, open, inString, escaped) = ([(range: Range<Int>, count: Int)](), [Int](), false, false)
        for (offset, byte) in document.enumerated() {
            if inString {
                (inString, escaped) = (escaped || byte != UInt8(ascii: "\""), !escaped && byte == UInt8(ascii: "\\"))
                continue
            }
            if byte == UInt8(ascii: "\""), let index = open.last, containers[index].count == 0 { containers[index].count = 1 }
            if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                if let index = open.last, containers[index].count == 0 { containers[index].count = 1 }
                open.append(containers.count)
                containers.append((offset..<offset, 0))
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                let index = open.removeLast()
                containers[index].range = containers[index].range.lowerBound..<(offset + 1)
            } else if byte == UInt8(ascii: ","), let index = open.last {
                containers[index].count += 1
            } else if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: ":"),
                let index = open.last, containers[index].count == 0
            {
                containers[index].count = 1
            }
        }
        return containers
    }
}
