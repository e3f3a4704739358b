#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where values lie in strict UTF-8 JSON (a byte order mark aside), found without decoding or allocating per value;
/// other bytes give `nil`, for the decoder or ``StrictJSON``. Offsets count from the first byte scanned.
struct JSONScanner {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    /// Where the last scan that returned `false` found the bytes stop being JSON, and what it expected there.
    private var failure: (offset: Int, expected: Expectation)?
    /// Whether strings are checked to spell text as a decoder requires and the grammar does not check (their bytes
    /// UTF-8, and no escaped surrogate without its pair), in the pass that reads them: a second pass over a file of
    /// 10 MB cost 0.5 ms of a cold lookup's 20.
    private var checksText = false
    /// What opened the plain member at each place of the last record that had one there, for `plainMember`.
    private var memberOpenings: [MemberOpening] = []
    /// How many containers may be open at once before the bytes are not read as JSON at all: those a value holds,
    /// plus those around it that the scan opened in other ways.
    private var maximumDepth = deepestNesting
    /// What salvage's scans learned of the values they read, if kept.
    private var outcomes: ValueOutcomes?
    /// The starts of values that salvage found do not read on to the array's end, never to be read again.
    private var sequencesNotReadingToTheEnd = Set<Int>()
    /// Where the errors noted so far lie, as lines and columns.
    private var locator = TextLocator()

    /// How many arrays and objects a JSON document may nest, one in the other: Foundation's decoder reads no deeper.
    static let deepestNesting = 512
    /// Where the containers and members met lie, if asked for.
    private var map: DocumentMap?

    /// What `read` finds in the one value at `range` of `data`, or in all of it, after a byte order mark, whitespace
    /// around it aside; `nil` if it finds nothing, or bytes follow the value.
    fileprivate static func reading<Result>(
        _ data: Data, at range: Range<Int>? = nil, checkingText: Bool = false, _ read: (inout JSONScanner) -> Result?
    ) -> Result? {
        data.withUnsafeBytes { bytes in
            reading(UnsafeRawBufferPointer(rebasing: bytes[range ?? 0..<data.count]), checkingText: checkingText, read)
        }
    }

    private static func reading<Result>(
        _ bytes: UnsafeRawBufferPointer, checkingText: Bool = false, _ read: (inout JSONScanner) -> Result?
    ) -> Result? {
        var scanner = JSONScanner(bytes: bytes)
        scanner.checksText = checkingText
        scanner.skipByteOrderMark()
        scanner.skipWhitespace()
        guard let result = read(&scanner) else { return nil }
        scanner.skipWhitespace()
        return scanner.position == bytes.count ? result : nil
    }

    /// The range of each element of the array that `data` holds, or `nil` if it does not hold one JSON array.
    static func elementRanges(of data: Data) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        return reading(data) { scanner in
            // The array is one level.
            scanner.maximumDepth = deepestNesting - 1
            let read = scanner.container(UInt8(ascii: "[")) { scanner in
                guard let element = scanner.value() else { return false }
                ranges.append(element)
                return true
            }
            return read ? ranges : nil
        }
    }

    /// The range of each element of the array that `data` holds, scanned already, from where each ends: each starts
    /// after the whitespace past the `[` or the `,` after the one before. `nil` where the bytes between are not so.
    static func elementRanges(of data: Data, endingAt ends: [UInt32]) -> [Range<Int>]? {
        data.withUnsafeBytes { bytes in
            // Byte by byte: between records the package writes are a line break and a few spaces.
            func start(after index: Int, _ separator: UInt8) -> Int? {
                var index = index
                while index < bytes.count, isJSONWhitespace(bytes[index]) { index += 1 }
                guard index < bytes.count, bytes[index] == separator else { return nil }
                index += 1
                while index < bytes.count, isJSONWhitespace(bytes[index]) { index += 1 }
                return index
            }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(ends.count)
            var (previousEnd, separator) = (bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0, UInt8(ascii: "["))
            for end in ends.lazy.map(Int.init) {
                guard let start = start(after: previousEnd, separator), start < end, end <= bytes.count else {
                    return nil
                }
                ranges.append(start..<end)
                (previousEnd, separator) = (end, UInt8(ascii: ","))
            }
            return ranges
        }
    }

    typealias ElementWithMember = (element: Range<Int>, member: Range<Int>?)

    /// Each element of the array that `data` holds, with the range of the value of its member `key`, as
    /// ``forEachElement(of:member:_:)`` finds them; `nil` where it finds no such array.
    static func elementRanges(of data: Data, member key: String) -> [ElementWithMember]? {
        var elements: [ElementWithMember] = []
        // More than any file of records needs: memory never touched costs nothing, and the array never moves.
        elements.reserveCapacity(data.count / 16)
        return forEachElement(of: data, member: key) { elements.append($0) } ? elements : nil
    }

    /// Calls `body` with each element of the array that `data` holds, in order, and the range of the value of its
    /// member `key` where it is an object that has that key once, spelled without escapes and no other key escaped;
    /// `false` if `data` does not hold one JSON array whose strings all spell text (see `checksText`), which `body`
    /// may have been called for the elements before. Each element's other members are checked, not collected.
    static func forEachElement(of data: Data, member key: String, _ body: (ElementWithMember) -> Void) -> Bool {
        Array(key.utf8).withUnsafeBytes { name in
            reading(data, checkingText: true) { scanner in
                scanner.memberOpenings = Array(repeating: MemberOpening(), count: 16)
                return scanner.container(UInt8(ascii: "[")) { scanner in
                    scanner.skipWhitespace()
                    let start = scanner.position
                    // The array is one level, and an object element another for its members' values.
                    scanner.maximumDepth = deepestNesting - 2
                    guard scanner.current == UInt8(ascii: "{") else {
                        scanner.maximumDepth = deepestNesting - 1
                        guard let element = scanner.value() else { return false }
                        body((element, nil))
                        return true
                    }
                    var (member, unsure, place): (Range<Int>?, Bool, Int) = (nil, false, 0)
                    let read = scanner.container(UInt8(ascii: "{")) { scanner in
                        defer { place += 1 }
                        guard let (key, value) = scanner.plainMember(comparedWith: name, at: place)
                            ?? scanner.member(comparedWith: name)
                        else { return false }
                        switch key {
                        case .sought:
                            unsure = unsure || member != nil
                            member = value
                        case .escaped: unsure = true
                        case .other: break
                        }
                        return true
                    }
                    body((start..<scanner.position, unsure ? nil : member))
                    return read
                } ? true : nil
            } ?? false
        }
    }

    /// The records of the array that `data` holds, or held before it was damaged or cut short, and the damaged
    /// bytes between them, in stored order, by the rules of <doc:ModelEvolution#Salvage-and-move-aside>. A value
    /// followed by one stray byte and then a record (a lost `,`) is whole; anything more makes it part of the damage.
    static func arrayParts(of data: Data) -> [ArrayPart] {
        data.withUnsafeBytes { buffer in
            var scanner = JSONScanner(bytes: buffer)
            // Values are read whole, however deep, so that what is known of each holds wherever a scan meets it;
            // records too deep for a decoder are damage, found after.
            scanner.maximumDepth = .max
            if buffer.count < Int32.max { scanner.outcomes = ValueOutcomes(count: buffer.count) }
            let parts = scanner.arrayParts()
            return parts.map { part in
                guard case .record(let range) = part, let error = scanner.nestingError(ofElementAt: range) else {
                    return part
                }
                return .damaged(range, error)
            }
        }
    }

    enum ArrayPart {
        case record(Range<Int>)
        /// Bytes that are not JSON, with the first place where they stop being JSON.
        case damaged(Range<Int>, SyntaxError)
    }

    /// Where `data` first stops being JSON and what was expected there; `nil` if it holds one JSON value, or is in
    /// UTF-16 or UTF-32, which only the decoder reads.
    static func syntaxError(in data: Data) -> SyntaxError? {
        guard !isUTF16OrUTF32(data) else { return nil }
        return data.withUnsafeBytes { buffer in
            var scanner = JSONScanner(bytes: buffer)
            return scanner.firstError()
        }
    }

    /// Whether Foundation's decoder reads `data` as UTF-16 or UTF-32, as it tells from a byte order mark or from
    /// where zeros are among the first four bytes (two ASCII characters); any other bytes it reads as UTF-8, zeros
    /// or not.
    static func isUTF16OrUTF32(_ data: Data) -> Bool {
        let first = Array(data.prefix(4))
        if first.starts(with: [0xFE, 0xFF]) || first.starts(with: [0xFF, 0xFE]) || first == [0, 0, 0xFE, 0xFF] {
            return true
        }
        let zeros = first.map { $0 == 0 }
        switch first.count {
        case 4: return [[true, true, true, false], [true, false, true, false], [false, true, true, true],
            [false, true, false, true]].contains(zeros)
        case 2: return zeros == [true, false] || zeros == [false, true]
        default: return false
        }
    }

    /// Where bytes stop being JSON, as a person finds it in an editor (line, column), and what was expected there.
    struct SyntaxError: CustomStringConvertible {
        var description: String

        fileprivate init(
            at offset: Int, expected: Expectation, in bytes: UnsafeRawBufferPointer, locator: inout TextLocator
        ) {
            let (line, column) = locator.locate(offset, in: bytes)
            let place = "line \(line), column \(column) (byte \(offset))"
            guard expected != .shallowerNesting else {
                description = "The file is not valid JSON a decoder reads at \(place): arrays and objects nest deeper "
                    + "there than the \(deepestNesting) levels it reads."
                return
            }
            description = "The file is not valid JSON at \(place): expected \(expected.rawValue), found "
                + "\(Self.describe(bytes[offset...]))."
        }

        private static func describe(_ rest: Slice<UnsafeRawBufferPointer>) -> String {
            guard let byte = rest.first else { return "the end of the file" }
            let names = [0x20: "a space", 0x0A: "a line break", 0x0D: "a carriage return", 0x09: "a tab"]
            if let name = names[Int(byte)] { return name }
            guard byte >= 0x20, byte != 0x7F else { return "the control character U+\(hex(byte, digits: 4))" }
            var iterator = rest.makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            guard case .valid(let encoded) = parser.parseScalar(from: &iterator) else {
                return "the byte 0x\(hex(byte, digits: 2)), which is not UTF-8"
            }
            return "'\(Character(Unicode.UTF8.decode(encoded)))'"
        }

        private static func hex(_ byte: UInt8, digits: Int) -> String {
            let text = String(byte, radix: 16, uppercase: true)
            return String(repeating: "0", count: digits - text.count) + text
        }
    }

    /// What the grammar expected where bytes stopped being JSON, as the error message says it.
    fileprivate enum Expectation: String {
        case value = "a value"
        case afterElement = "',' or ']' after an array element"
        case afterMember = "',' or '}' after an object member"
        case keyOrEnd = "a key in quotes or '}'"
        case key = "a key in quotes"
        case colon = "':' after a key"
        case stringEnd = "'\"' to end the string"
        case stringCharacter = "'\"' or more of the string, in which control characters must be escaped"
        case escape = "an escape sequence (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u)"
        case hexDigits = "four hexadecimal digits after '\\u'"
        case digit = "a digit"
        case trueLiteral = "'true'"
        case falseLiteral = "'false'"
        case nullLiteral = "'null'"
        case end = "the end of the file after the value"
        case utf8 = "UTF-8 text"
        case shallowerNesting = "no more arrays or objects inside those around"
    }

    /// Lines and columns of offsets asked for in ascending order, each counted on from the one before, so that a
    /// file's every error costs one count of its bytes; an offset before the last is counted again from the start.
    struct TextLocator {
        private var offset = 0
        private var line = 1
        /// In characters (Unicode scalars), from 1.
        private var column = 1

        mutating func locate(_ target: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
            if target < offset { self = TextLocator() }
            // A byte order mark opens the first line unseen.
            if offset == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = min(3, target) }
            for byte in UnsafeRawBufferPointer(rebasing: bytes[offset..<target]) {
                if byte == UInt8(ascii: "\n") {
                    (line, column) = (line + 1, 1)
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            offset = target
            return (line, column)
        }
    }

    /// The range of the one value that `data` holds, whitespace aside; `nil` if it holds no single JSON value, or,
    /// as asked, one whose strings do not all spell text or that nests more than `maximumDepth` containers.
    static func valueRange(
        of data: Data, checkingText: Bool = false, maximumDepth: Int = deepestNesting
    ) -> Range<Int>? {
        reading(data, checkingText: checkingText) { scanner in
            scanner.maximumDepth = maximumDepth
            return scanner.value()
        }
    }

    /// Where the containers and members lie, if `data` holds one JSON value, strictly: without a byte order mark, so
    /// in UTF-8 if in any Unicode form. A decoder may then read the bytes without checking their grammar again,
    /// though not yet their UTF-8, nor walking them to find its way.
    static func map(ofStrictJSON data: Data) -> DocumentMap? {
        guard !data.starts(with: [0xEF, 0xBB, 0xBF]), data.count < Int32.max else { return nil }
        return reading(data) { scanner in
            // The default depth, which also bounds the decoder's recursion.
            scanner.map = DocumentMap(capacityFor: data.count)
            return scanner.value() == nil ? nil : scanner.map
        }
    }

    /// The string that a JSON string's characters spell, inside the quotes and escapes as stored; `nil` if they
    /// hold an escaped lone surrogate, which spells none. Bytes that are not UTF-8 are repaired.
    static func unescaped(_ characters: some Collection<UInt8>) -> String? {
        let unescape = { (characters: UnsafeRawBufferPointer) in
            withUnescaped(characters) { String(decoding: $0, as: UTF8.self) }
        }
        return characters.withContiguousStorageIfAvailable { unescape(UnsafeRawBufferPointer($0)) }
            ?? Array(characters).withUnsafeBytes(unescape)
    }

    /// Calls `body` with the UTF-8 that a JSON string's characters spell, inside the quotes and escapes as stored;
    /// `nil` if they hold an escaped lone surrogate, which spells none.
    static func withUnescaped<Result>(
        _ characters: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result? {
        // Escapes are longer than what they spell in UTF-8, so the characters' count is room enough.
        withUnsafeTemporaryAllocation(byteCount: characters.count, alignment: 1) { output in
            var written = 0
            var index = 0
            func append(_ byte: UInt8) {
                output[written] = byte
                written += 1
            }
            // A word at a time to each backslash while a whole word remains; then, or past a quote, byte by byte.
            while let backslash = characters[endOfOrdinaryCharacters(in: characters, from: index)...]
                .firstIndex(of: UInt8(ascii: "\\"))
            {
                let run = UnsafeRawBufferPointer(rebasing: characters[index..<backslash])
                UnsafeMutableRawBufferPointer(rebasing: output[written...]).copyMemory(from: run)
                written += run.count
                guard backslash + 1 < characters.count else { break }
                let escaped = characters[backslash + 1]
                index = backslash + 2
                switch escaped {
                case UInt8(ascii: "b"): append(0x08)
                case UInt8(ascii: "f"): append(0x0C)
                case UInt8(ascii: "n"): append(0x0A)
                case UInt8(ascii: "r"): append(0x0D)
                case UInt8(ascii: "t"): append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = hexValue(characters, at: index)
                    index += 4
                    if (0xD800..<0xDC00).contains(scalar), index + 6 <= characters.count,
                        characters[index] == UInt8(ascii: "\\"), characters[index + 1] == UInt8(ascii: "u"),
                        case let trail = hexValue(characters, at: index + 2), (0xDC00..<0xE000).contains(trail)
                    {
                        scalar = 0x10000 + (scalar - 0xD800) << 10 + (trail - 0xDC00)
                        index += 6
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    UTF8.encode(unicode, into: append)
                default: append(escaped)
                }
            }
            let rest = UnsafeRawBufferPointer(rebasing: characters[min(index, characters.count)...])
            UnsafeMutableRawBufferPointer(rebasing: output[written...]).copyMemory(from: rest)
            written += rest.count
            return body(UnsafeRawBufferPointer(rebasing: output[..<written]))
        }
    }

    /// The four hexadecimal digits at `index`, which the grammar has checked.
    private static func hexValue(_ characters: UnsafeRawBufferPointer, at index: Int) -> UInt32 {
        characters[index..<min(index + 4, characters.count)].reduce(0) { value, digit in
            value << 4 + UInt32(digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit | 0x20 - 87)
        }
    }

    /// Calls `body` with the ranges of each member's key (inside the quotes, escapes as stored) and value in the
    /// object at `range`, without an array of them; `false` if none is there.
    static func forEachMember(
        in buffer: UnsafeRawBufferPointer, at range: Range<Int>, _ body: (Range<Int>, Range<Int>) -> Void
    ) -> Bool {
        let read = reading(UnsafeRawBufferPointer(rebasing: buffer[range])) { scanner in
            scanner.container(UInt8(ascii: "{")) { scanner in
                guard let key = scanner.key(), let value = scanner.value() else { return false }
                body(key, value)
                return true
            }
        }
        return read == true
    }

    // MARK: - Grammar

    private mutating func fail(_ expected: Expectation) -> Bool {
        failure = (position, expected)
        return false
    }

    /// Fails where and as a scan of the same value did before.
    private mutating func fail(_ known: ValueOutcomes.Outcome) -> Bool {
        if case .failure(let failed) = known { (position, failure) = (failed.offset, failed) }
        return false
    }

    private mutating func noted() -> SyntaxError {
        let (offset, expected) = failure ?? (position, .value)
        return syntaxError(at: offset, expected)
    }

    private mutating func syntaxError(at offset: Int, _ expected: Expectation) -> SyntaxError {
        SyntaxError(at: offset, expected: expected, in: bytes, locator: &locator)
    }

    private mutating func firstError() -> SyntaxError? {
        skipByteOrderMark()
        skipWhitespace()
        if skipValue() {
            skipWhitespace()
            if position < bytes.count { failure = (position, .end) }
        }
        // The grammar does not look into strings' UTF-8, which the decoder rejects as well.
        var valid = 0
        let checked = bytes[..<(failure?.offset ?? bytes.count)].makeIterator()
        if transcode(checked, from: UTF8.self, to: UTF8.self, stoppingOnError: true, into: { _ in valid += 1 }) {
            return syntaxError(at: valid, .utf8)
        }
        return failure == nil ? nil : noted()
    }

    private mutating func arrayParts() -> [ArrayPart] {
        skipByteOrderMark()
        skipWhitespace()
        // The array closes at the indentation it opens at, which the package's files do not indent.
        let closing = current == UInt8(ascii: "[") ? lineIndentation(before: position) ?? 0 : 0
        let indentation = recordIndentation(closing: closing)
        var parts: [ArrayPart] = []
        // Where the damage starts, where a record may start after it (past a value that is part of it), what it is,
        // and the value before it, if a stray byte may be all that is damaged.
        var damage: (start: Int, resume: Int, error: SyntaxError, value: Range<Int>?)?
        if current == UInt8(ascii: "[") {
            position += 1
        } else {
            var whole = JSONScanner(bytes: bytes)
            damage = (0, position, whole.firstError() ?? noted(), nil)
        }
        while true {
            if let (start, resume, error, value) = damage {
                let next = nextRecord(from: resume, indentation: indentation, closing: closing)
                var damaged = start..<(next.map { trimmedEnd(of: start..<$0) } ?? bytes.count)
                if let value {
                    // One stray byte, besides a `,` or `]` that ends the damage.
                    let damagedBytes = bytes[start..<damaged.upperBound].lazy
                    let stray = Array(damagedBytes.filter { !isJSONWhitespace($0) }.prefix(3))
                    if stray.count <= 1 || (stray.count == 2 && ",]".utf8.contains(stray[1])) {
                        parts.append(.record(value))
                    } else {
                        damaged = value.lowerBound..<damaged.upperBound
                    }
                }
                if !damaged.isEmpty || (next == nil && parts.isEmpty) { parts.append(.damaged(damaged, error)) }
                damage = nil
                guard let next else { return parts }
                position = next
            }
            skipWhitespace()
            let start = position
            guard current != nil else { return parts }
            // A value, unless the array ends here, after a record, a comma or the opening.
            var value: Range<Int>?
            if current != UInt8(ascii: "]") {
                guard skipValue() else {
                    damage = (start, start + 1, noted(), nil)
                    continue
                }
                value = start..<position
                skipWhitespace()
            }
            // A number's end is no proof that it is whole.
            let closed = value.map { !isDigit(bytes[$0.upperBound - 1]) } ?? true
            let next = position
            if let value, current == UInt8(ascii: ",") || (current == nil && closed) {
                parts.append(.record(value))
                guard current != nil else { return parts }
                position += 1
                continue
            }
            let bracket = current == UInt8(ascii: "]")
            if bracket {
                let ends = closesTheBytes()
                // A whole value that the array's bracket closes is a record, whatever damage follows.
                if let value, ends || closed { parts.append(.record(value)) }
                if ends { return parts }
            }
            failure = (position, bracket ? .end : .afterElement)
            damage = closed ? (next, next, noted(), bracket ? nil : value) : (start, start + 1, noted(), nil)
        }
    }

    /// Where the element at `range` of an array nests deeper than a decoder reads, the array being one level.
    private mutating func nestingError(ofElementAt range: Range<Int>) -> SyntaxError? {
        var element = JSONScanner(bytes: bytes)
        (element.position, element.maximumDepth) = (range.lowerBound, Self.deepestNesting - 1)
        guard !element.skipValue(), let (offset, expected) = element.failure else { return nil }
        return syntaxError(at: offset, expected)
    }

    /// The indentation of each record, in a file that puts records on lines of their own: that of the first line
    /// that starts with a value from which records read on to the array's end, as a nested value's do not.
    private mutating func recordIndentation(closing: Int) -> Int? {
        let start = position
        defer { position = start }
        // Line by line: a search at every byte would try each nested value too.
        var index = position
        while let lineBreak = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            index = lineBreak + 1 + bytes[(lineBreak + 1)...].prefix { $0 == 0x20 || $0 == 0x09 }.count
            if index < bytes.count, opensValue(bytes[index]),
                readsToTheEnd(from: index, closing: closing, firstOnly: false)
            {
                return index - lineBreak - 1
            }
        }
        // No line reads on to the end, as when the end is cut off too: the first record's line tells.
        guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else { return nil }
        position = start + 1
        skipWhitespace()
        return position < bytes.count && opensValue(bytes[position]) ? lineIndentation(before: position) : nil
    }

    /// Where the next record after damage at `start` plausibly starts.
    private mutating func nextRecord(from start: Int, indentation: Int?, closing: Int) -> Int? {
        for candidate in start..<bytes.count where opensValue(bytes[candidate]) {
            // A number or literal right after other bytes is the rest of one.
            guard "{[\"".utf8.contains(bytes[candidate]) || candidate == 0 || isJSONWhitespace(bytes[candidate - 1])
                || ",[".utf8.contains(bytes[candidate - 1])
            else { continue }
            // A value after a colon is a member's, never a record, even where the record's end is what is damaged.
            let before = bytes[..<candidate].lastIndex(where: { !isJSONWhitespace($0) })
            if let before, bytes[before] == UInt8(ascii: ":") { continue }
            // At the records' indentation one record is proof enough, so that records between two damages come back.
            let indented = indentation != nil && lineIndentation(before: candidate) == indentation
            if readsToTheEnd(from: candidate, closing: closing, firstOnly: indented) {
                return candidate
            }
        }
        return nil
    }

    /// How far the line is indented, if only indentation stands before `index` on it, and it is not the first.
    private func lineIndentation(before index: Int) -> Int? {
        let indentation = bytes[..<index].reversed().prefix { $0 == 0x20 || $0 == 0x09 }.count
        return index - indentation > 0 && bytes[index - indentation - 1] == UInt8(ascii: "\n") ? indentation : nil
    }

    /// Whether the values from `index` on, separated by commas, end with the `]` that ends the bytes, indented as
    /// `closing` says if it starts a line; if not, their starts join `sequencesNotReadingToTheEnd`, never to be read
    /// again. With `firstOnly`, whether the first alone is followed by what follows a record: a comma, that `]`
    /// however indented, or the bytes' end if it is not a number.
    private mutating func readsToTheEnd(from index: Int, closing: Int, firstOnly: Bool) -> Bool {
        var starts: [Int] = []
        let reads = readsToTheEnd(from: index, closing: closing, firstOnly: firstOnly, noting: &starts)
        if !reads { sequencesNotReadingToTheEnd.formUnion(starts) }
        return reads
    }

    private mutating func readsToTheEnd(
        from index: Int, closing: Int, firstOnly: Bool, noting starts: inout [Int]
    ) -> Bool {
        position = index
        while true {
            if !firstOnly {
                guard !sequencesNotReadingToTheEnd.contains(position) else { return false }
                starts.append(position)
            }
            guard skipValue() else { return false }
            let closed = !isDigit(bytes[position - 1])
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                // A cut after a nested array's `]` in a file of indented lines leaves one at the end too, indented
                // as deep as it was.
                let indentation = lineIndentation(before: position)
                return closesTheBytes() && (firstOnly || (indentation ?? closing) == closing)
            }
            guard current == UInt8(ascii: ",") else { return firstOnly && current == nil && closed }
            if firstOnly { return true }
            position += 1
            skipWhitespace()
        }
    }

    /// The end of `range` without the whitespace and the one comma that separate it from what follows.
    private func trimmedEnd(of range: Range<Int>) -> Int {
        var end = range.upperBound
        while end > range.lowerBound, isJSONWhitespace(bytes[end - 1]) { end -= 1 }
        if end > range.lowerBound, bytes[end - 1] == UInt8(ascii: ",") { end -= 1 }
        while end > range.lowerBound, isJSONWhitespace(bytes[end - 1]) { end -= 1 }
        return end
    }

    /// Moves past the `]` here and the whitespace after it: whether that ends the bytes.
    private mutating func closesTheBytes() -> Bool {
        position += 1
        skipWhitespace()
        return position == bytes.count
    }

    private func opensValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""),
            UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private var current: UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    /// Steps over a UTF-8 byte order mark at the start, which some editors write and the decoder reads.
    private mutating func skipByteOrderMark() {
        if position == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    // Inlined, as are `skipString` and `skipDigits`: called at every step of a scan, a call costs what the step does.
    @inline(__always)
    private mutating func skipWhitespace() {
        position = Self.endOfWhitespace(in: bytes, from: position)
    }

    @inline(__always)
    private static func endOfWhitespace(in bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        var index = index
        while index < bytes.count, isJSONWhitespace(bytes[index]) {
            index += 1
            // Indentation follows a line break in the files the package writes: a run of spaces, a word at a time.
            if bytes[index - 1] == UInt8(ascii: "\n") { index = endOfSpaces(in: bytes, from: index) }
        }
        return index
    }

    /// Reads the object or array that `open` opens here, calling `part` for each member or element; `false` if
    /// there is no such container, or `part` could not read one.
    @inline(__always)
    private mutating func container(_ open: UInt8, _ part: (inout JSONScanner) -> Bool) -> Bool {
        guard current == open else { return false }
        // `]` and `}` follow `[` and `{` but one in ASCII.
        let close = open + 2
        position += 1
        skipWhitespace()
        if current == close {
            position += 1
            return true
        }
        while part(&self) {
            skipWhitespace()
            guard let byte = current else { return false }
            position += 1
            if byte == close { return true }
            guard byte == UInt8(ascii: ",") else { return false }
        }
        return false
    }

    /// Reads `"key" :`, the range of the key's characters; `nil`, noting `expected`, if there is no key here.
    private mutating func key(_ expected: Expectation = .key) -> Range<Int>? {
        skipWhitespace()
        let start = position + 1
        guard current == UInt8(ascii: "\"") ? skipString() : fail(expected) else { return nil }
        let key = start..<(position - 1)
        skipWhitespace()
        guard current == UInt8(ascii: ":") || fail(.colon) else { return nil }
        position += 1
        return key
    }

    /// Notes the member that `key` opens where a map is kept; `false` if there is none.
    private mutating func noteMember(_ key: Range<Int>?) -> Bool {
        guard let key else { return false }
        if map != nil {
            skipWhitespace()
            let plain = bytes[key].allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\\") }
            map?.member(key: key, value: position, plain: plain)
        }
        return true
    }

    /// What a key is to the one sought.
    private enum KeyComparison {
        case sought, other, escaped
    }

    /// Reads one member, `"key" : value`, as `key()` and `value()` do, comparing the key with `name`, which has no
    /// escapes; `nil`, noting what was expected, if there is none here.
    private mutating func member(comparedWith name: UnsafeRawBufferPointer) -> (KeyComparison, Range<Int>)? {
        guard let range = key() else { return nil }
        let key = UnsafeRawBufferPointer(rebasing: bytes[range])
        guard let value = value() else { return nil }
        return (key.contains(UInt8(ascii: "\\")) ? .escaped : key.elementsEqual(name) ? .sought : .other, value)
    }

    /// Reads one member as the package's encoder writes most of a record's, up to the `,` or `}` after it: a key and a
    /// string value of ASCII that needs no escape, or an integer value. `nil`, moving nothing, where the member is not
    /// so plain, for `member(comparedWith:)` to read and check it as any other. The scan waits on each end it
    /// searches for, a word at a time, before it can read on: here the index stays out of memory between them, and
    /// where the bytes before the value are those before the value at the same `place` in the last record, as the
    /// encoder writes records, they are compared as two words instead, checked as they were there. Not inlined: in
    /// the scan's closures it made them too large for the buffer's subscript to be inlined, which doubled the scan.
    private mutating func plainMember(
        comparedWith name: UnsafeRawBufferPointer, at place: Int
    ) -> (KeyComparison, Range<Int>)? {
        let (valueStart, key): (Int, KeyComparison)
        if place < memberOpenings.count, case let opening = memberOpenings[place], opening.opens(bytes, at: position) {
            (valueStart, key) = (position + opening.count, opening.key)
        } else {
            let keyStart = Self.endOfWhitespace(in: bytes, from: position)
            guard let keyEnd = Self.endOfPlainString(in: bytes, at: keyStart) else { return nil }
            let colon = Self.endOfWhitespace(in: bytes, from: keyEnd)
            guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":") else { return nil }
            valueStart = Self.endOfWhitespace(in: bytes, from: colon + 1)
            key = UnsafeRawBufferPointer(rebasing: bytes[(keyStart + 1)..<(keyEnd - 1)]).elementsEqual(name)
                ? .sought : .other
            if place < memberOpenings.count, let opening = MemberOpening(bytes, position..<valueStart, key: key) {
                memberOpenings[place] = opening
            }
        }
        guard let valueEnd = Self.endOfPlainString(in: bytes, at: valueStart)
            ?? Self.endOfInteger(in: bytes, at: valueStart)
        else { return nil }
        // Only the end of the member shows that an integer's digits are the whole number, not a fraction's first.
        let next = Self.endOfWhitespace(in: bytes, from: valueEnd)
        guard next < bytes.count, bytes[next] == UInt8(ascii: ",") || bytes[next] == UInt8(ascii: "}") else {
            return nil
        }
        position = next
        return (key, valueStart..<valueEnd)
    }

    /// The bytes that opened a plain member up to its value (whitespace, key, colon, whitespace), 16 at most, as two
    /// words' first `count` bytes hold them, and what the key was to the one sought.
    private struct MemberOpening {
        private var words: (UInt64, UInt64) = (0, 0)
        private var masks: (UInt64, UInt64) = (0, 0)
        private(set) var count = 0
        private(set) var key = KeyComparison.other

        init() {}

        /// The bytes at `range`, read and checked, unless there are more than 16, or fewer than 16 from there on.
        init?(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, key: KeyComparison) {
            guard range.count <= 16, range.lowerBound + 16 <= bytes.count else { return nil }
            (count, self.key) = (range.count, key)
            masks = (Self.mask(ofFirst: count), Self.mask(ofFirst: count - 8))
            let start = range.lowerBound
            words = (JSONScanner.word(in: bytes, at: start), JSONScanner.word(in: bytes, at: start + 8))
            words = (words.0 & masks.0, words.1 & masks.1)
        }

        /// Whether the same bytes open a member at `index`, so that they need no reading or checking again.
        @inline(__always)
        func opens(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
            count > 0 && index + 16 <= bytes.count && JSONScanner.word(in: bytes, at: index) & masks.0 == words.0
                && JSONScanner.word(in: bytes, at: index + 8) & masks.1 == words.1
        }

        private static func mask(ofFirst count: Int) -> UInt64 {
            count <= 0 ? 0 : count >= 8 ? ~0 : (1 << (8 * count)) - 1
        }
    }

    /// The end of the string at `index` if it holds only ASCII that needs no escape, which then spells text.
    @inline(__always)
    private static func endOfPlainString(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let end = endOfOrdinaryCharacters(in: bytes, from: index + 1, orNonASCII: true)
        return end < bytes.count && bytes[end] == UInt8(ascii: "\"") ? end + 1 : nil
    }

    /// The end of the digits of the integer at `index`, or `nil` if there is none; what follows may go on the number.
    @inline(__always)
    private static func endOfInteger(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        let first = index < bytes.count && bytes[index] == UInt8(ascii: "-") ? index + 1 : index
        guard first < bytes.count, isDigit(bytes[first]) else { return nil }
        let end = endOfDigits(in: bytes, from: first + 1)
        // A zero starts no longer integer.
        return bytes[first] != UInt8(ascii: "0") || end == first + 1 ? end : nil
    }

    private mutating func value() -> Range<Int>? {
        skipWhitespace()
        let start = position
        // A string or number, as most members' values are, without the loop that keeps track of nesting.
        let read = switch current {
        case UInt8(ascii: "\""): skipString()
        case let byte? where isDigit(byte) || byte == UInt8(ascii: "-"): skipNumber()
        default: skipValue()
        }
        return read ? start..<position : nil
    }

    /// Moves past one value and all it holds; `false` if there is none here. Nested values are skipped by depth
    /// rather than by recursion, so that deep nesting cannot exhaust the stack.
    @inline(__always)
    private mutating func skipValue() -> Bool {
        guard outcomes != nil else { return skipValueOnce() }
        let read = skipValueOnce()
        // The containers still open fail where the value does, and as it does.
        if !read { outcomes!.noteFailureOfOpenContainers(failure ?? (position, .value)) }
        return read
    }

    private mutating func skipValueOnce() -> Bool {
        // The open containers, innermost lowest, a bit each: 1 for an object. Bits beyond 64 levels wait in
        // `deeper`, so that the usual record costs no allocation.
        var objects: UInt64 = 0
        var deeper: [UInt64] = []
        var depth = 0
        func pop() {
            outcomes?.noteClosing(at: position)
            map?.close(at: position)
            depth -= 1
            objects = objects >> 1 | (depth >= 64 ? deeper.removeLast() << 63 : 0)
        }
        var expectsValue = true
        while true {
            skipWhitespace()
            guard let byte = current else {
                return fail(expectsValue ? .value : objects & 1 != 0 ? .afterMember : .afterElement)
            }
            if expectsValue {
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if let known = outcomes?.outcome(at: position) {
                        guard case .end(let end) = known else { return fail(known) }
                        position = end
                        if depth == 0 { return true }
                        expectsValue = false
                        continue
                    }
                    guard depth < maximumDepth else { return fail(.shallowerNesting) }
                    outcomes?.noteOpening(at: position)
                    map?.open(at: position)
                    if depth >= 64 { deeper.append(objects >> 63) }
                    objects = objects << 1 | (byte == UInt8(ascii: "{") ? 1 : 0)
                    depth += 1
                    position += 1
                    skipWhitespace()
                    // `]` and `}` follow `[` and `{` but one in ASCII.
                    guard current == byte + 2 else {
                        if byte == UInt8(ascii: "[") { map?.element() }
                        if byte == UInt8(ascii: "{"), !noteMember(key(.keyOrEnd)) { return false }
                        continue
                    }
                    position += 1
                    pop()
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    // Letter by letter only where the word is not whole, to say where it goes wrong.
                    if skipWholeLiteral(startingWith: byte) { break }
                    let literal: Expectation = byte == UInt8(ascii: "t")
                        ? .trueLiteral : byte == UInt8(ascii: "f") ? .falseLiteral : .nullLiteral
                    // The letters between the quotes of what is expected.
                    let letters = literal.rawValue.utf8.dropFirst()
                    guard skip(letters.count - 1, literal, { letters.dropFirst($0).first == $1 }) else { return false }
                default:
                    guard skipNumber() else { return false }
                }
                if depth == 0 { return true }
                expectsValue = false
                continue
            }
            guard depth > 0 else { return false }
            let inObject = objects & 1 != 0
            if byte == UInt8(ascii: ",") {
                position += 1
                if inObject, !noteMember(key()) { return false }
                if !inObject { map?.element() }
                expectsValue = true
            } else if byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                position += 1
                pop()
                if depth == 0 { return true }
            } else {
                return fail(inObject ? .afterMember : .afterElement)
            }
        }
    }

    @inline(__always)
    private mutating func skipString() -> Bool {
        guard outcomes != nil else { return skipStringCharacters() }
        if let known = outcomes!.outcome(at: position) {
            guard case .end(let end) = known else { return fail(known) }
            position = end
            return true
        }
        let read = skipStringCharacters()
        outcomes!.noteEndOfEscapedQuotes(read ? .end(position) : .failure(failure ?? (position, .stringEnd)))
        return read
    }

    @inline(__always)
    private mutating func skipStringCharacters() -> Bool {
        position += 1
        while true {
            position = Self.endOfOrdinaryCharacters(in: bytes, from: position, orNonASCII: checksText)
            guard position < bytes.count else { return fail(.stringEnd) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return true
            }
            if byte < 0x20 { return fail(.stringCharacter) }
            if byte >= 0x80, checksText {
                var iterator = bytes[position...].makeIterator()
                var parser = Unicode.UTF8.ForwardParser()
                guard case .valid(let scalar) = parser.parseScalar(from: &iterator) else { return fail(.utf8) }
                position += scalar.count
                continue
            }
            if byte == UInt8(ascii: "\\") {
                position += 1
                guard let escaped = current else { return fail(.escape) }
                if escaped == UInt8(ascii: "\""), outcomes != nil { outcomes!.noteEscapedQuote(at: position) }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    position += 1
                    guard skip(4, .hexDigits, { isHexDigit($1) }) else { return false }
                    if checksText, !skipPairedSurrogate() { return false }
                default:
                    return fail(.escape)
                }
                continue
            }
            position += 1
        }
    }

    /// Moves past the escaped low surrogate that must follow an escaped high one just read; whether the escape just
    /// read spells text: it is no surrogate, or a high one so followed.
    private mutating func skipPairedSurrogate() -> Bool {
        let unit = Self.hexValue(bytes, at: position - 4)
        guard (0xD800..<0xE000).contains(unit) else { return true }
        guard unit < 0xDC00, position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u")
        else { return fail(.utf8) }
        position += 2
        guard skip(4, .hexDigits, { isHexDigit($1) }) else { return false }
        return (0xDC00..<0xE000).contains(Self.hexValue(bytes, at: position - 4)) || fail(.utf8)
    }

    // MARK: - Eight bytes at a time
    // Each word holds the eight bytes from `position` with the first in its lowest byte, whatever the platform's byte
    // order, so that a word's first flagged byte is at `trailingZeroBitCount / 8`. Words never reach past the bytes:
    // the last few are left to the byte-by-byte loops.

    /// Where a string's characters from `index` up to the next `"`, `\` or control character end, or with
    /// `nonASCII` the next byte above 0x7F, a word at a time while a whole word remains. A byte that it stops at
    /// needlessly, past a flagged one, the byte-by-byte loop reads on.
    @inline(__always)
    static func endOfOrdinaryCharacters(
        in bytes: UnsafeRawBufferPointer, from index: Int, orNonASCII nonASCII: Bool = false
    ) -> Int {
        let high: UInt64 = nonASCII ? 0x8080_8080_8080_8080 : 0
        return endOfWords(in: bytes, from: index) { word in
            // Quotes and backslashes become zero bytes.
            zeroBytes(in: word ^ 0x2222_2222_2222_2222) | zeroBytes(in: word ^ 0x5C5C_5C5C_5C5C_5C5C)
                | bytesBelow0x20(in: word) | word & high
        }
    }

    /// Where the first byte that `flags` sets bits in is, from `index`, a word at a time while a whole word remains.
    @inline(__always)
    static func endOfWords(
        in bytes: UnsafeRawBufferPointer, from index: Int, _ flags: (UInt64) -> UInt64
    ) -> Int {
        var index = index
        while index + 8 <= bytes.count {
            let flagged = flags(word(in: bytes, at: index))
            guard flagged == 0 else { return index + flagged.trailingZeroBitCount / 8 }
            index += 8
        }
        return index
    }

    /// Where the spaces from `index` end, a word at a time while a whole word remains.
    @inline(__always)
    static func endOfSpaces(in bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        // Spaces become zero bytes.
        endOfWords(in: bytes, from: index) { $0 ^ 0x2020_2020_2020_2020 }
    }

    /// Moves past the `true`, `false` or `null` that `first` starts, compared as one word where a whole word remains;
    /// `false`, moving nothing, if it is not there whole.
    private mutating func skipWholeLiteral(startingWith first: UInt8) -> Bool {
        // The letters as a word holds them, the first lowest.
        let (letters, count): (UInt64, Int) = switch first {
        case UInt8(ascii: "t"): (0x65_75_72_74, 4)
        case UInt8(ascii: "f"): (0x65_73_6C_61_66, 5)
        default: (0x6C_6C_75_6E, 4)
        }
        // The word's first `count` bytes.
        let mask: UInt64 = (1 << (8 * count)) - 1
        guard position + 8 <= bytes.count, word(at: position) & mask == letters else { return false }
        position += count
        return true
    }

    /// Moves past the digits here, a word at a time while a whole word remains.
    @inline(__always)
    private mutating func skipDigits() {
        position = Self.endOfDigits(in: bytes, from: position)
    }

    /// Where the digits from `index` end, a word at a time while a whole word remains.
    @inline(__always)
    private static func endOfDigits(in bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        var index = endOfWords(in: bytes, from: index, nonDigits)
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        return index
    }

    private func word(at offset: Int) -> UInt64 {
        Self.word(in: bytes, at: offset)
    }

    private static func word(in bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The high bit of each zero byte of `word`, and perhaps of bytes above the first (a borrow runs up), never below.
    static func zeroBytes(in word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
    }

    /// The high bit of each byte of `word` below 0x20, and perhaps of bytes above the first, never below it.
    private static func bytesBelow0x20(in word: UInt64) -> UInt64 {
        (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080
    }

    /// The high bit of each byte of `word` that is not an ASCII digit, exactly, for the digits are trusted.
    private static func nonDigits(in word: UInt64) -> UInt64 {
        // Adding to seven bits sets the eighth and carries no further: a high bit where the seven are below "0", where
        // they are above "9", and where the byte's own is set.
        let low = word & 0x7F7F_7F7F_7F7F_7F7F
        let belowZero = ~(low &+ 0x5050_5050_5050_5050)
        let aboveNine = low &+ 0x4646_4646_4646_4646
        return (belowZero | aboveNine | word) & 0x8080_8080_8080_8080
    }

    /// Moves past `count` bytes that `matches` accepts at their offsets, or notes `expected` at the first it does not.
    private mutating func skip(_ count: Int, _ expected: Expectation, _ matches: (Int, UInt8) -> Bool) -> Bool {
        for offset in 0..<count where position + offset == bytes.count || !matches(offset, bytes[position + offset]) {
            position += offset
            return fail(expected)
        }
        position += count
        return true
    }

    private mutating func skipNumber() -> Bool {
        let start = position
        let negative = current == UInt8(ascii: "-")
        if negative { position += 1 }
        guard let first = current, isDigit(first) else { return fail(negative ? .digit : .value) }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let byte = current, isDigit(byte) else { return fail(.digit) }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let byte = current, isDigit(byte) else { return fail(.digit) }
            skipDigits()
        }
        return position > start
    }
}

extension JSONScanner {
    /// How the values that salvage's scans read turned out, by where each starts: each array's and object's, and
    /// each string's that starts at a quote escaped inside another, which ends as that one does. Salvage tries a
    /// record at each byte that may start one, inside values read before too; what is known of a value there is not
    /// read again, so that every byte is read a few times, not once for each value around it.
    fileprivate struct ValueOutcomes {
        enum Outcome {
            /// Where the value ends.
            case end(Int)
            /// Where the bytes stop being JSON, and what was expected there.
            case failure((offset: Int, expected: Expectation))
        }

        /// For each byte: 0 if nothing is known of a value there, else where it ends or, below 0, how it fails.
        private var outcomes: [Int32]
        /// The failures that `outcomes` count back from -1.
        private var failures: [(offset: Int, expected: Expectation)] = []
        /// The starts of the containers open in the scan under way, outermost first.
        private var open: [Int] = []
        /// The quotes escaped so far in the string being read.
        private var escapedQuotes: [Int] = []

        init(count: Int) {
            outcomes = Array(repeating: 0, count: count)
        }

        @inline(__always)
        func outcome(at offset: Int) -> Outcome? {
            let known = outcomes[offset]
            return known > 0 ? .end(Int(known)) : known < 0 ? .failure(failures[Int(-known) - 1]) : nil
        }

        mutating func noteOpening(at offset: Int) {
            open.append(offset)
        }

        mutating func noteClosing(at end: Int) {
            outcomes[open.removeLast()] = Int32(end)
        }

        mutating func noteFailureOfOpenContainers(_ failure: (offset: Int, expected: Expectation)) {
            guard !open.isEmpty else { return }
            failures.append(failure)
            for start in open { outcomes[start] = -Int32(failures.count) }
            open.removeAll(keepingCapacity: true)
        }

        mutating func noteEscapedQuote(at offset: Int) {
            escapedQuotes.append(offset)
        }

        /// Notes how the string just read turned out for each quote escaped in it.
        mutating func noteEndOfEscapedQuotes(_ outcome: Outcome) {
            guard !escapedQuotes.isEmpty else { return }
            let known: Int32
            switch outcome {
            case .end(let end): known = Int32(end)
            case .failure(let failure):
                failures.append(failure)
                known = -Int32(failures.count)
            }
            for quote in escapedQuotes { outcomes[quote] = known }
            escapedQuotes.removeAll(keepingCapacity: true)
        }
    }
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

private func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
}

/// Where the containers of a document end and its objects' members lie, found by the scan that checks it: a decoder
/// reads values from it without walking the bytes around them. Offsets and places take 32 bits, which halves the
/// memory a load touches; a document of 2 GiB or more gets no map.
struct DocumentMap {
    private struct Container {
        let start: UInt32
        var end: UInt32 = 0
        var firstMember: Int32 = -1
        var lastMember: Int32 = -1
        /// An array's elements.
        var count: UInt32 = 0
        /// Whether every key's bytes spell it: ASCII, unescaped.
        var plainKeys = true
    }

    /// A member's key characters, as stored, where its value starts, and which member follows it in its object.
    struct Member {
        private let keyStart, keyEnd, valueStart: UInt32
        fileprivate var nextMember: Int32 = -1

        var key: Range<Int> { Int(keyStart)..<Int(keyEnd) }
        var value: Int { Int(valueStart) }
        /// -1 after the last.
        var next: Int { Int(nextMember) }

        fileprivate init(key: Range<Int>, value: Int) {
            (keyStart, keyEnd, valueStart) = (UInt32(key.lowerBound), UInt32(key.upperBound), UInt32(value))
        }
    }

    /// In the order they open.
    private var containers: [Container] = []
    /// In the order they appear, the members of an object chained among those of the objects in it.
    private(set) var members: [Member] = []
    private var open: [Int] = []
    private var lastFound = 0

    /// Room for the containers and members that a document of `size` bytes usually holds, which costs no memory
    /// until used: growing by copies cost more than the members' reading.
    fileprivate init(capacityFor size: Int) {
        containers.reserveCapacity(size / 64)
        members.reserveCapacity(size / 8)
    }

    fileprivate mutating func open(at offset: Int) {
        open.append(containers.count)
        containers.append(Container(start: UInt32(offset)))
    }

    fileprivate mutating func close(at end: Int) {
        containers[open.removeLast()].end = UInt32(end)
    }

    fileprivate mutating func member(key: Range<Int>, value: Int, plain: Bool) {
        let object = open[open.count - 1]
        if !plain { containers[object].plainKeys = false }
        let member = Int32(members.count)
        if containers[object].lastMember < 0 {
            containers[object].firstMember = member
        } else {
            members[Int(containers[object].lastMember)].nextMember = member
        }
        containers[object].lastMember = member
        members.append(Member(key: key, value: value))
    }

    fileprivate mutating func element() {
        containers[open[open.count - 1]].count += 1
    }

    /// How many elements the array that opens at `offset` holds.
    mutating func count(ofArrayAt offset: Int) -> Int {
        Int(containers[index(ofContainerAt: offset)].count)
    }

    /// Where the container that opens at `offset` ends.
    mutating func end(ofContainerAt offset: Int) -> Int {
        Int(containers[index(ofContainerAt: offset)].end)
    }

    /// The first member of the object that opens at `offset`, an index of `members` (-1 if it has none), and
    /// whether every key's bytes spell it.
    mutating func object(at offset: Int) -> (firstMember: Int, plainKeys: Bool) {
        let object = containers[index(ofContainerAt: offset)]
        return (Int(object.firstMember), object.plainKeys)
    }

    private mutating func index(ofContainerAt offset: Int) -> Int {
        let offset = UInt32(offset)
        // A step at a time from the last found, for the few steps a decoder usually takes; by halves beyond them.
        var (index, steps) = (lastFound, 0)
        while containers[index].start != offset, steps < 16 {
            (index, steps) = (index + (containers[index].start < offset ? 1 : -1), steps + 1)
        }
        if containers[index].start != offset {
            var high = containers.count - 1
            index = 0
            while index < high {
                let middle = (index + high + 1) / 2
                if containers[middle].start <= offset { index = middle } else { high = middle - 1 }
            }
        }
        precondition(containers[index].start == offset, "No container opens at \(offset)")
        lastFound = index
        return index
    }
}
