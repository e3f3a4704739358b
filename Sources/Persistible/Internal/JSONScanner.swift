import Foundation

/// Finds where values lie in UTF-8 JSON without decoding them: the elements of an array, the members of an object.
///
/// Defaults, per-record decoding, salvage and byte-preserving rewrites all work on one record's bytes at a time, and
/// need to know where each record starts and ends without paying for a decode. The grammar is strict JSON in UTF-8
/// (no comments, no trailing commas), after an optional byte order mark; anything else makes a scan return `nil`,
/// and the caller falls back to the decoder, which says what is wrong. Offsets count from the first byte of the scanned bytes.
struct JSONScanner {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The range of each element of the array that `data` holds, or `nil` if it does not hold one JSON array.
    static func elementRanges(of data: Data) -> [Range<Int>]? {
        data.withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            scanner.skipByteOrderMark()
            scanner.skipWhitespace()
            guard let elements = scanner.elements() else { return nil }
            scanner.skipWhitespace()
            return scanner.position == buffer.count ? elements : nil
        }
    }

    /// The elements of the array that `data` opens, as far as they are JSON: their ranges, and where the bytes stop
    /// being JSON, if they do, which is `nil` for a whole array. `nil` if `data` does not open an array.
    static func readableElements(of data: Data) -> (ranges: [Range<Int>], brokenAt: Int?)? {
        data.withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            scanner.skipByteOrderMark()
            scanner.skipWhitespace()
            guard scanner.current == UInt8(ascii: "[") else { return nil }
            scanner.position += 1
            var ranges: [Range<Int>] = []
            var resume = scanner.position
            scanner.skipWhitespace()
            if scanner.current == UInt8(ascii: "]") {
                scanner.position += 1
            } else {
                while true {
                    scanner.skipWhitespace()
                    let start = scanner.position
                    guard scanner.skipValue() else { return (ranges, start) }
                    ranges.append(start..<scanner.position)
                    resume = scanner.position
                    scanner.skipWhitespace()
                    if scanner.current == UInt8(ascii: ",") {
                        scanner.position += 1
                    } else if scanner.current == UInt8(ascii: "]") {
                        scanner.position += 1
                        break
                    } else {
                        return (ranges, resume)
                    }
                }
            }
            scanner.skipWhitespace()
            return scanner.position == buffer.count ? (ranges, nil) : (ranges, scanner.position)
        }
    }

    /// The range of the one value that `data` holds, without the whitespace around it, or `nil` if it holds no
    /// single JSON value.
    static func valueRange(of data: Data) -> Range<Int>? {
        data.withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            scanner.skipByteOrderMark()
            scanner.skipWhitespace()
            let start = scanner.position
            guard scanner.skipValue() else { return nil }
            let end = scanner.position
            scanner.skipWhitespace()
            return scanner.position == buffer.count ? start..<end : nil
        }
    }

    /// The ranges of the elements of the array at `range` of `data`, or `nil` if the bytes there are not an array.
    static func elementRanges(ofArrayIn data: Data, at range: Range<Int>) -> [Range<Int>]? {
        data.withUnsafeBytes { buffer in
            var scanner = JSONScanner(UnsafeRawBufferPointer(rebasing: buffer[range]))
            guard let elements = scanner.elements(), scanner.position == range.count else { return nil }
            return elements.map { ($0.lowerBound + range.lowerBound)..<($0.upperBound + range.lowerBound) }
        }
    }

    /// The members of the object at `range` of `data`: each key's range (inside its quotes) and its value's range,
    /// in stored order; `nil` if the bytes there are not an object.
    static func members(ofObjectIn data: Data, at range: Range<Int>) -> [Member]? {
        data.withUnsafeBytes { buffer in
            var scanner = JSONScanner(UnsafeRawBufferPointer(rebasing: buffer[range]))
            return scanner.members()?.map { $0.shifted(by: range.lowerBound) }
        }
    }

    /// Calls `body` with the members of the object at `range` of `buffer`, without making an array of them.
    ///
    /// - Returns: `false` if the bytes there are not an object.
    static func forEachMember(
        in buffer: UnsafeRawBufferPointer, at range: Range<Int>, _ body: (Member) -> Void
    ) -> Bool {
        var scanner = JSONScanner(UnsafeRawBufferPointer(rebasing: buffer[range]))
        return scanner.members(body) && scanner.position == range.count
    }

    /// One member of an object: where its key's characters and its value lie.
    struct Member {
        /// The key's bytes, inside the quotes, escapes as stored.
        var key: Range<Int>
        var value: Range<Int>

        func shifted(by offset: Int) -> Member {
            Member(key: (key.lowerBound + offset)..<(key.upperBound + offset),
                   value: (value.lowerBound + offset)..<(value.upperBound + offset))
        }
    }

    // MARK: - Grammar

    private var current: UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    /// Steps over a UTF-8 byte order mark at the start, which the decoder reads and some editors write: such a file
    /// is UTF-8 JSON, and its records are found as any other's.
    private mutating func skipByteOrderMark() {
        if position == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, isJSONWhitespace(bytes[position]) { position += 1 }
    }

    private mutating func elements() -> [Range<Int>]? {
        guard current == UInt8(ascii: "[") else { return nil }
        position += 1
        var ranges: [Range<Int>] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return ranges
        }
        while true {
            skipWhitespace()
            let start = position
            guard skipValue() else { return nil }
            ranges.append(start..<position)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return ranges
            default: return nil
            }
        }
    }

    private mutating func members() -> [Member]? {
        var members: [Member] = []
        guard self.members({ members.append($0) }) else { return nil }
        skipWhitespace()
        return position == bytes.count ? members : nil
    }

    private mutating func members(_ body: (Member) -> Void) -> Bool {
        skipWhitespace()
        guard current == UInt8(ascii: "{") else { return false }
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            skipWhitespace()
            return true
        }
        while true {
            skipWhitespace()
            let keyStart = position + 1
            guard current == UInt8(ascii: "\""), skipString() else { return false }
            let key = keyStart..<(position - 1)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return false }
            position += 1
            skipWhitespace()
            let valueStart = position
            guard skipValue() else { return false }
            body(Member(key: key, value: valueStart..<position))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                skipWhitespace()
                return true
            default: return false
            }
        }
    }

    /// Moves past one value; `false` if there is none here.
    private mutating func skipValue() -> Bool {
        guard let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"):
            // Nested values are skipped by depth rather than by recursion, so deep nesting cannot exhaust the stack.
            return skipContainer()
        case UInt8(ascii: "["):
            return skipContainer()
        case UInt8(ascii: "t"): return skipLiteral("true")
        case UInt8(ascii: "f"): return skipLiteral("false")
        case UInt8(ascii: "n"): return skipLiteral("null")
        default: return skipNumber()
        }
    }

    /// Skips an object or array, checking its punctuation as it goes.
    private mutating func skipContainer() -> Bool {
        // Which open containers are objects: a bit each for the first 64 levels, so that the usual record costs
        // no allocation, and an array for any deeper.
        var objects: UInt64 = 0
        var deeper: [Bool] = []
        var depth = 0
        func push(_ isObject: Bool) {
            if depth < 64 {
                if isObject { objects |= 1 << UInt64(depth) } else { objects &= ~(1 << UInt64(depth)) }
            } else {
                deeper.append(isObject)
            }
            depth += 1
        }
        func pop() {
            depth -= 1
            if depth >= 64 { deeper.removeLast() }
        }
        func topIsObject() -> Bool {
            depth - 1 < 64 ? objects & (1 << UInt64(depth - 1)) != 0 : deeper[deeper.count - 1]
        }
        var expectsValue = true
        while true {
            skipWhitespace()
            guard let byte = current else { return false }
            if expectsValue {
                switch byte {
                case UInt8(ascii: "{"):
                    push(true)
                    position += 1
                    skipWhitespace()
                    if current == UInt8(ascii: "}") {
                        position += 1
                        pop()
                        expectsValue = false
                        if depth == 0 { return true }
                    } else {
                        guard skipKey() else { return false }
                    }
                    continue
                case UInt8(ascii: "["):
                    push(false)
                    position += 1
                    skipWhitespace()
                    if current == UInt8(ascii: "]") {
                        position += 1
                        pop()
                        expectsValue = false
                        if depth == 0 { return true }
                    }
                    continue
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                case UInt8(ascii: "t"):
                    guard skipLiteral("true") else { return false }
                case UInt8(ascii: "f"):
                    guard skipLiteral("false") else { return false }
                case UInt8(ascii: "n"):
                    guard skipLiteral("null") else { return false }
                default:
                    guard skipNumber() else { return false }
                }
                expectsValue = false
                continue
            }
            guard depth > 0 else { return false }
            let inObject = topIsObject()
            if byte == UInt8(ascii: ",") {
                position += 1
                if inObject {
                    skipWhitespace()
                    guard skipKey() else { return false }
                }
                expectsValue = true
            } else if byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                position += 1
                pop()
                if depth == 0 { return true }
            } else {
                return false
            }
        }
    }

    /// Skips `"key" :`, leaving the scanner before the value.
    private mutating func skipKey() -> Bool {
        guard current == UInt8(ascii: "\""), skipString() else { return false }
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { return false }
        position += 1
        return true
    }

    private mutating func skipString() -> Bool {
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return true
            }
            if byte < 0x20 { return false }
            if byte == UInt8(ascii: "\\") {
                position += 1
                guard let escaped = current else { return false }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    guard position + 4 < bytes.count else { return false }
                    for offset in 1...4 where !isHexDigit(bytes[position + offset]) { return false }
                    position += 5
                default:
                    return false
                }
                continue
            }
            position += 1
        }
        return false
    }

    private mutating func skipLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] { return false }
        position += count
        return true
    }

    private mutating func skipNumber() -> Bool {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { return false }
        position += 1
        if first != UInt8(ascii: "0") {
            while let byte = current, isDigit(byte) { position += 1 }
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let byte = current, isDigit(byte) else { return false }
            while let byte = current, isDigit(byte) { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let byte = current, isDigit(byte) else { return false }
            while let byte = current, isDigit(byte) { position += 1 }
        }
        return position > start
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
}
