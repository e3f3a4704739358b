#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Decoding directly from the bytes

extension JSONDecoder {
    /// Decodes `type` from `data` with the results and errors of `decode(_:from:)`, reading strict UTF-8 JSON
    /// directly and leaving all else to `decode(_:from:)`: JSON5, a top level dictionary without braces, the rare
    /// strategies (`.custom` and `.formatted` ones, dictionaries under a key strategy, non-conforming floats).
    ///
    /// - Throws: The `DecodingError` that `decode(_:from:)` throws for the same bytes, or a type's own error.
    func decodeDirectly<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard DirectDecoding.isEnabled, !allowsJSON5, !assumesTopLevelDictionary,
            let source = DirectDecoding(data, decoder: self)
        else { return try decode(type, from: data) }
        do {
            let value = try source.unwrap(type, at: source.skipWhitespace(from: 0), parent: .root, key: nil)
            return source.needsFoundation ? try decode(type, from: data) : value
        } catch {
            // Checked first: a type's `init(from:)` may have made anything of the error thrown there.
            if source.needsFoundation { return try decode(type, from: data) }
            guard error is DirectDecoding.NotValidJSON else { throw error }
            // What Foundation throws for a number or string it cannot represent, wherever it is.
            let context = DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid JSON.")
            throw DecodingError.dataCorrupted(context)
        }
    }
}

/// The document of one direct decode, and the strategies of the `JSONDecoder` it stands for. **Not `Sendable`: one
/// decode uses it on one thread.**
final class DirectDecoding: JSONDocument {
    /// `false` when the environment variable `PERSISTIBLE_DECODER` is `foundation`, for the tests' second run.
    static let isEnabled = PlatformDirectory.value(inEnvironment: "PERSISTIBLE_DECODER") != "foundation"

    /// The strategies read for each value, copied: each of the decoder's own reads takes a lock.
    let dates: JSONDecoder.DateDecodingStrategy
    let keys: JSONDecoder.KeyDecodingStrategy
    /// The decoder itself: other strategies, the numbers only it converts exactly, keys under `.convertFromSnakeCase`.
    let foundation: JSONDecoder
    private lazy var keyReading = KeyReading(foundation)

    /// A string or number that Foundation cannot represent: the error it reports for the whole input.
    struct NotValidJSON: Error {}

    /// Whether the decode met what it leaves to Foundation, which then decodes the bytes again.
    private(set) var needsFoundation = false

    /// `nil` unless `data` holds strict JSON.
    init?(_ data: Data, decoder: JSONDecoder) {
        dates = decoder.dateDecodingStrategy
        keys = decoder.keyDecodingStrategy
        foundation = decoder
        super.init(data)
    }

    func leaveToFoundation() -> NotValidJSON {
        needsFoundation = true
        return NotValidJSON()
    }

    // MARK: Values of the types Foundation treats specially

    /// Decodes `type` from the value at `offset`, the `key` of the value at `parent`, as Foundation's `unwrap` does.
    func unwrap<T: Decodable>(
        _ type: T.Type, at offset: Int, parent: CodingPathNode, key: (any CodingKey)?
    ) throws -> T {
        // The usual scalars without a decoder, nor a path unless it is needed; `unsafeBitCast` where the type is
        // checked, since `as!` would cost a dynamic cast.
        if T.self == Int.self {
            return unsafeBitCast(try integer(Int.self, at: offset, path: parent.appending(key).path), to: T.self)
        }
        if T.self == Double.self {
            let double = try floatingPoint(Double.self, at: offset, path: parent.appending(key).path)
            return unsafeBitCast(double, to: T.self)
        }
        if T.self == String.self {
            return unsafeBitCast(try string(at: offset, path: parent.appending(key).path), to: T.self)
        }
        if T.self == Bool.self {
            guard bytes[offset] == UInt8(ascii: "t") || bytes[offset] == UInt8(ascii: "f") else {
                throw typeMismatch(Bool.self, found: offset, at: parent.appending(key).path)
            }
            return unsafeBitCast(bytes[offset] == UInt8(ascii: "t"), to: T.self)
        }
        let node = parent.appending(key)
        if T.self == Data.self {
            return try data(at: offset, node: node) as! T
        }
        if T.self == Date.self {
            return try date(at: offset, node: node, parent: parent) as! T
        }
        if T.self == URL.self {
            try checkNotNull(offset, URL.self, at: node.path)
            guard let url = URL(string: try string(at: offset, path: node.path)) else {
                throw corrupted("Invalid URL string.", at: node.path)
            }
            return url as! T
        }
        if T.self == Decimal.self {
            try checkNotNull(offset, Decimal.self, at: node.path)
            guard isNumber(offset) else {
                throw DecodingError.typeMismatch(Decimal.self, .init(codingPath: node.path, debugDescription: ""))
            }
            return try numberByFoundation(Decimal.self, at: offset) as! T
        }
        // Arrays and dictionaries of the usual scalars in code specialized for them, unlike `init(from:)`'s own.
        if T.self == [Int].self { return try elements(Int.self, at: offset, node: node) as! T }
        if T.self == [Double].self { return try elements(Double.self, at: offset, node: node) as! T }
        if T.self == [String].self { return try elements(String.self, at: offset, node: node) as! T }
        // A collection's size first: a cast searches every conformance the first time it meets a type, 0.1 ms or so.
        if MemoryLayout<T>.size == MemoryLayout<[Int]>.size,
            let collection = T.self as? any DirectlyDecodedCollection.Type
        {
            return try collection.decode(from: self, at: offset, node: node) as! T
        }
        return try T(from: DirectDecoder(source: self, offset: offset, node: node))
    }

    /// The array at `offset`, read as `Array.init(from:)` reads it, without a container for each element.
    func elements<Element: Decodable>(
        _ type: Element.Type, at offset: Int, node: CodingPathNode
    ) throws -> [Element] {
        try DirectDecoder(source: self, offset: offset, node: node).checkContainer(opening: UInt8(ascii: "["))
        var elements: [Element] = []
        // Allocated once where growing costs most, a longer list grown as usual: measured, an exact allocation the
        // size of a file's records changed how the C library reused memory between loads, five times the faults.
        elements.reserveCapacity(min(map.count(ofArrayAt: offset), 4096))
        var index = skipWhitespace(from: offset + 1)
        while bytes[index] != UInt8(ascii: "]") {
            elements.append(try unwrap(type, at: index, parent: node, key: DirectCodingKey(intValue: elements.count)))
            index = element(after: index)
        }
        return elements
    }

    private func date(at offset: Int, node: CodingPathNode, parent: CodingPathNode) throws -> Date {
        try checkNotNull(offset, Date.self, at: node.path)
        // `if case` rather than `switch`: which cases there are depends on the platform's Foundation.
        if case .secondsSince1970 = dates {
            return Date(timeIntervalSince1970: try floatingPoint(Double.self, at: offset, path: node.path))
        } else if case .millisecondsSince1970 = dates {
            return Date(timeIntervalSince1970: try floatingPoint(Double.self, at: offset, path: node.path) / 1000)
        } else if case .iso8601 = dates {
            let string = try string(at: offset, path: node.path)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                // Foundation names the path of the container, not the value's.
                throw corrupted("Expected date string to be ISO8601-formatted.", at: parent.path)
            }
            return date
        } else if case .deferredToDate = dates {
            return try Date(from: DirectDecoder(source: self, offset: offset, node: node))
        }
        throw leaveToFoundation()
    }

    private func data(at offset: Int, node: CodingPathNode) throws -> Data {
        try checkNotNull(offset, Data.self, at: node.path)
        switch foundation.dataDecodingStrategy {
        case .deferredToData:
            return try Data(from: DirectDecoder(source: self, offset: offset, node: node))
        case .base64:
            guard bytes[offset] == UInt8(ascii: "\"") else {
                throw typeMismatch(String.self, found: offset, at: node.path)
            }
            guard let data = Data(base64Encoded: try string(at: offset, path: node.path)) else {
                throw corrupted("Encountered Data is not valid Base64.", at: node.path)
            }
            return data
        default:
            throw leaveToFoundation()
        }
    }

    // MARK: Scalars

    func string(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> String {
        try checkNotNull(offset, String.self, at: path())
        guard bytes[offset] == UInt8(ascii: "\"") else { throw typeMismatch(String.self, found: offset, at: path()) }
        let (characters, escaped) = stringCharacters(at: offset)
        lastValueRead = (offset, characters.upperBound + 1)
        return try text(bytes(in: characters), escaped: escaped)
    }

    /// The string that `characters` spell; the scanner has checked their grammar, not their UTF-8.
    private func text(_ characters: UnsafeRawBufferPointer, escaped: Bool) throws -> String {
        let string = escaped
            ? JSONScanner.withUnescaped(characters, validatedString) ?? nil : validatedString(characters)
        // A lone surrogate's escape, or bytes that are not UTF-8: Foundation reports either as invalid JSON.
        guard let string else { throw NotValidJSON() }
        return string
    }

    /// The string that `utf8` holds, if it is UTF-8.
    private func validatedString(_ utf8: UnsafeRawBufferPointer) -> String? {
        var string = String(decoding: utf8, as: UTF8.self)
        // Bytes that are not UTF-8 come back repaired, so unlike those stored: what `String(validating:)`, which
        // needs macOS 15, would tell.
        return string.withUTF8 { sameBytes(UnsafeRawBufferPointer($0), utf8) } ? string : nil
    }

    func isNumber(_ offset: Int) -> Bool {
        let byte = bytes[offset]
        return byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10
    }

    func integer<T: FixedWidthInteger & Decodable>(
        _ type: T.Type, at offset: Int, path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        try checkNotNull(offset, type, at: path())
        guard isNumber(offset) else { throw typeMismatch(type, found: offset, at: path()) }
        // Read without generics, which would cost a call for each digit; `T` is only checked once.
        guard let (magnitude, negative) = plainInteger(at: offset),
            let value = negative ? Int64(exactly: magnitude).flatMap({ T(exactly: -$0) }) : T(exactly: magnitude)
        else { return try numberByFoundation(type, at: offset) }
        return value
    }

    /// The integer at `offset`, if it has neither fraction nor exponent, and at most 19 digits, which always fit in
    /// 64 bits: Foundation converts the few longer ones.
    private func plainInteger(at offset: Int) -> (magnitude: UInt64, negative: Bool)? {
        let negative = bytes[offset] == UInt8(ascii: "-")
        let digits = negative ? offset + 1 : offset
        var index = digits
        var magnitude: UInt64 = 0
        while case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            magnitude = magnitude &* 10 &+ UInt64(digit)
            index += 1
        }
        let byte = bytes[index]
        guard index - digits <= 19, byte != UInt8(ascii: "."), byte | 0x20 != UInt8(ascii: "e") else { return nil }
        lastValueRead = (offset, index)
        return (magnitude, negative)
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible & Decodable>(
        _ type: T.Type, at offset: Int, path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        try checkNotNull(offset, type, at: path())
        guard isNumber(offset) else {
            // Non-conforming floats spelled as strings: rare enough to leave to Foundation.
            let floats = foundation.nonConformingFloatDecodingStrategy
            if bytes[offset] == UInt8(ascii: "\""), case .convertFromString = floats { throw leaveToFoundation() }
            throw typeMismatch(type, found: offset, at: path())
        }
        let end = endOfValue(at: offset)
        lastValueRead = (offset, end)
        guard let value = T(String(decoding: bytes[offset..<end], as: UTF8.self)), value.isFinite else {
            throw NotValidJSON()
        }
        // A number so small that it rounds to zero is out of range, as a large one is.
        let significand = bytes[offset..<end].prefix { $0 | 0x20 != UInt8(ascii: "e") }
        if value == 0, significand.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) {
            throw NotValidJSON()
        }
        return value
    }

    /// The number at `offset` as Foundation converts it, for the conversions that only it decides exactly.
    private func numberByFoundation<T: Decodable>(_ type: T.Type, at offset: Int) throws -> T {
        let number = Data(bytes[offset..<endOfValue(at: offset)])
        do {
            return try foundation.decode(type, from: number)
        } catch DecodingError.dataCorrupted {
            throw NotValidJSON()
        } catch {
            // Not about the number, such as a Foundation that does not read the type: its own words for the whole.
            throw leaveToFoundation()
        }
    }

    // MARK: Errors

    func checkNotNull(_ offset: Int, _ type: Any.Type, at path: @autoclosure () -> [any CodingKey]) throws {
        guard bytes[offset] == UInt8(ascii: "n") else { return }
        let description = "Cannot get value of type \(type) -- found null value instead"
        throw DecodingError.valueNotFound(type, .init(codingPath: path(), debugDescription: description))
    }

    func typeMismatch(_ type: Any.Type, found offset: Int, at path: [any CodingKey]) -> DecodingError {
        let found = switch bytes[offset] {
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "{"): "a dictionary"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "bool"
        default: "number"
        }
        let description = "Expected to decode \(type) but found \(found) instead."
        return DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: description))
    }

    private func corrupted(_ description: String, at path: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: description))
    }

    // MARK: Keys

    /// The key that the member spelled `characters` stands for under the key strategy.
    func readKey(_ characters: Range<Int>) throws -> String {
        let raw = bytes(in: characters)
        let key = try text(raw, escaped: raw.contains(UInt8(ascii: "\\")))
        switch keys {
        case .useDefaultKeys:
            return key
        case .convertFromSnakeCase:
            return keyReading.read(key, at: [])
        default:
            // `.custom`: rare enough to leave to Foundation.
            throw leaveToFoundation()
        }
    }
}

// MARK: - Coding paths

/// A coding path as a chain to its parent, so that entering a value copies no array.
indirect enum CodingPathNode {
    case root
    case key(any CodingKey, CodingPathNode)

    var path: [any CodingKey] {
        guard case .key(let key, let parent) = self else { return [] }
        return parent.path + [key]
    }

    func appending(_ key: (any CodingKey)?) -> CodingPathNode {
        key.map { .key($0, self) } ?? self
    }
}

/// A key of a path that no type's keys name: an array's index, a dictionary's key, `super`.
struct DirectCodingKey: CodingKey {
    // Small enough for an existential's inline storage: an array's elements then allocate no key.
    private let name: String?
    /// `Int.min` for none.
    private let number: Int

    var intValue: Int? { number == Int.min ? nil : number }
    /// Foundation's spelling, made only when asked for.
    var stringValue: String { name ?? "Index \(number)" }

    init(stringValue: String) {
        self.init(stringValue: stringValue, intValue: nil)
    }

    /// The key of a dictionary's member, which the standard library's own decoding numbers where it can.
    init(stringValue: String, intValue: Int?) {
        (name, number) = (stringValue, intValue ?? Int.min)
    }

    init(intValue: Int) {
        (name, number) = (nil, intValue)
    }
}

// MARK: - The decoder

/// The `Decoder` of one value of a direct decode, and its single value container.
struct DirectDecoder: Decoder, SingleValueDecodingContainer {
    let source: DirectDecoding
    let offset: Int
    let node: CodingPathNode

    var codingPath: [any CodingKey] { node.path }

    var userInfo: [CodingUserInfoKey: Any] {
        source.foundation.userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try checkContainer(opening: UInt8(ascii: "{"))
        return KeyedDecodingContainer(try DirectKeyedContainer<Key>(source: source, offset: offset, node: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try checkContainer(opening: UInt8(ascii: "["))
        return DirectUnkeyedContainer(source: source, offset: offset, node: node)
    }

    func checkContainer(opening: UInt8) throws {
        guard source.bytes[offset] != opening else { return }
        let (type, kind): (Any.Type, String) = opening == UInt8(ascii: "{")
            ? ([String: Any].self, "keyed") : ([Any].self, "unkeyed")
        guard source.bytes[offset] != UInt8(ascii: "n") else {
            let description = "Cannot get \(kind) decoding container -- found null value instead"
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: description))
        }
        throw source.typeMismatch(type, found: offset, at: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool {
        source.bytes[offset] == UInt8(ascii: "n")
    }

    func decode<T: BinaryFloatingPoint & LosslessStringConvertible & Decodable>(_ type: T.Type) throws -> T {
        try source.floatingPoint(type, at: offset, path: codingPath)
    }

    func decode<T: FixedWidthInteger & Decodable>(_ type: T.Type) throws -> T {
        try source.integer(type, at: offset, path: codingPath)
    }

    // The 128-bit integers came after the protocol, with defaults that throw, which the generic method does not
    // replace: each container meets them by name.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try source.integer(type, at: offset, path: codingPath) }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try source.integer(type, at: offset, path: codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try source.unwrap(type, at: offset, parent: node, key: nil)
    }
}

/// A collection read in a loop of its own, rather than by its `init(from:)` with a container's calls for each element.
protocol DirectlyDecodedCollection {
    static func decode(from source: DirectDecoding, at offset: Int, node path: CodingPathNode) throws -> Self
}

extension Array: DirectlyDecodedCollection where Element: Decodable {
    static func decode(from source: DirectDecoding, at offset: Int, node path: CodingPathNode) throws -> Self {
        try source.elements(Element.self, at: offset, node: path)
    }
}

/// A `[String: Value]`, read as `init(from:)` reads it from the keys that its container lists, but for which of two
/// wrong values it names first: Foundation's in the order of its hashing, ours in the document's.
extension Dictionary: DirectlyDecodedCollection where Key == String, Value: Decodable {
    static func decode(from source: DirectDecoding, at offset: Int, node path: CodingPathNode) throws -> Self {
        // The usual values in code specialized for them; `unsafeBitCast` where the type is checked.
        if Value.self == Int.self {
            return unsafeBitCast(try [String: Int].members(from: source, at: offset, node: path), to: Self.self)
        }
        if Value.self == String.self {
            return unsafeBitCast(try [String: String].members(from: source, at: offset, node: path), to: Self.self)
        }
        return try members(from: source, at: offset, node: path)
    }

    private static func members(from source: DirectDecoding, at offset: Int, node path: CodingPathNode) throws -> Self {
        // Foundation reads a dictionary's keys as spelled under a key strategy: rare enough to leave to it.
        guard case .useDefaultKeys = source.keys else { throw source.leaveToFoundation() }
        try DirectDecoder(source: source, offset: offset, node: path).checkContainer(opening: UInt8(ascii: "{"))
        var result: [String: Value] = [:]
        let first = source.map.object(at: offset).firstMember
        try source.forEachMember(from: first) { _, member in
            let (key, value) = (member.key, member.value)
            let name = try source.string(at: key.lowerBound - 1, path: path.path)
            // A container lists the first of two members with one key, and numbers in keys as numbers too.
            guard result[name] == nil else { return }
            let codingKey = DirectCodingKey(stringValue: name, intValue: Int(name))
            result[name] = try source.unwrap(Value.self, at: value, parent: path, key: codingKey)
        }
        return result
    }
}

// MARK: - Keyed containers

/// An object's members, found in the document's map in the order they are stored: by their keys' bytes, or where a
/// key strategy reads them or some key's bytes do not spell it, by the names they stand for. A class: the standard
/// library's box copies the container it holds for each call, which for a struct of three references cost more than
/// allocating it.
final class DirectKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let source: DirectDecoding
    private let node: CodingPathNode
    /// The first member's index in the map's members; -1 for none.
    private let first: Int
    /// Each member's key as read, in order, where some key's bytes do not spell it (escaped, or outside ASCII,
    /// where two spellings may be one key by canonical equivalence) or a key strategy reads them.
    private let names: [String]?

    init(source: DirectDecoding, offset: Int, node: CodingPathNode) throws {
        (self.source, self.node) = (source, node)
        let plainKeys: Bool
        (first, plainKeys) = source.map.object(at: offset)
        guard case .useDefaultKeys = source.keys, plainKeys else {
            var names: [String] = []
            try source.forEachMember(from: first) { _, member in
                names.append(try source.readKey(member.key))
            }
            self.names = names
            return
        }
        names = nil
    }

    var codingPath: [any CodingKey] { node.path }

    var allKeys: [Key] {
        var (seen, keys) = (Set<String>(), [Key]())
        source.forEachMember(from: first) { position, member in
            let name = name(at: position, member.key)
            if seen.insert(name).inserted, let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    private func name(at position: Int, _ key: Range<Int>) -> String {
        names?[position] ?? String(decoding: source.bytes(in: key), as: UTF8.self)
    }

    /// Where the value of each key's first member starts, for an object of many: built at the first search past the
    /// sixteenth member, since searching from the first member each time would make reading them all quadratic.
    private lazy var firstValues: [String: Int] = {
        var firstValues: [String: Int] = [:]
        source.forEachMember(from: first) { position, member in
            let name = name(at: position, member.key)
            if firstValues[name] == nil { firstValues[name] = member.value }
        }
        return firstValues
    }()

    /// Where the value of `key` starts; `nil` if no member has it. The first of two members with one key, as in
    /// Foundation; from the first member on, since most objects have few.
    private func valueOffset(of key: some CodingKey) -> Int? {
        let name = key.stringValue
        var wanted = name
        return wanted.withUTF8 { utf8 in
            let wantedBytes = UnsafeRawBufferPointer(utf8)
            let byName = names != nil || wantedBytes.contains { $0 >= 0x80 }
            var (index, position) = (first, 0)
            while index >= 0 {
                // Past sixteen members, by name in a table: names compare as plain keys' bytes do.
                if position == 16 { return firstValues[name] }
                let member = source.map.members[index]
                let found = byName
                    ? self.name(at: position, member.key) == name
                    : member.key.count == utf8.count && sameBytes(source.bytes(in: member.key), wantedBytes)
                if found { return member.value }
                (index, position) = (member.next, position + 1)
            }
            return nil
        }
    }

    private func value(of key: Key) throws -> Int {
        guard let offset = valueOffset(of: key) else {
            let description = "No value associated with key \(key) (\"\(key.stringValue)\")."
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: description))
        }
        return offset
    }

    func contains(_ key: Key) -> Bool {
        valueOffset(of: key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        source.bytes[try value(of: key)] == UInt8(ascii: "n")
    }

    // The usual scalars without generics; every other type's requirement, which a generic method meets.
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try source.integer(type, at: try value(of: key), path: node.appending(key).path)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try source.string(at: try value(of: key), path: node.appending(key).path)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try source.unwrap(type, at: try value(of: key), parent: node, key: key)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        try source.integer(type, at: try value(of: key), path: node.appending(key).path)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        try source.integer(type, at: try value(of: key), path: node.appending(key).path)
    }

    // One search for the key, where the protocol's defaults make three. The usual types need overloads of their
    // own: the protocol's extension has a default for each, which the generic method would not replace.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try valueIfPresent(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try valueIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try valueIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try valueIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try valueIfPresent(type, key) }

    private func valueIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let offset = valueOffset(of: key), source.bytes[offset] != UInt8(ascii: "n") else { return nil }
        return try source.unwrap(type, at: offset, parent: node, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try DirectDecoder(source: source, offset: try value(of: key), node: node.appending(key))
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try DirectDecoder(source: source, offset: try value(of: key), node: node.appending(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(forKey: DirectCodingKey(stringValue: "super"))
    }

    /// A missing key gives a decoder of `null`, as in Foundation. Generic, so that `superDecoder()` passes `super`.
    func superDecoder(forKey key: some CodingKey) -> any Decoder {
        DirectDecoder(source: source, offset: valueOffset(of: key) ?? source.nullValue, node: node.appending(key))
    }
}

/// Whether `a` and `b` hold the same bytes, compared a word at a time, which `elementsEqual` cannot.
@inline(__always)
func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    let words = a.count / 8
    let wordsEqual = (0..<words).allSatisfy { word in
        a.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self)
    }
    return wordsEqual && (words * 8..<a.count).allSatisfy { a[$0] == b[$0] }
}

// MARK: - Unkeyed containers

/// An array's elements, read in order from the bytes.
struct DirectUnkeyedContainer: UnkeyedDecodingContainer {
    private let source: DirectDecoding
    private let node: CodingPathNode
    private let start: Int
    /// Where the next element starts, or the closing bracket.
    private var position: Int
    private(set) var currentIndex = 0

    init(source: DirectDecoding, offset: Int, node: CodingPathNode) {
        self.source = source
        self.node = node
        start = offset
        position = source.skipWhitespace(from: offset + 1)
    }

    var codingPath: [any CodingKey] { node.path }

    var count: Int? { source.map.count(ofArrayAt: start) }

    var isAtEnd: Bool { source.bytes[position] == UInt8(ascii: "]") }

    private var currentKey: DirectCodingKey { DirectCodingKey(intValue: currentIndex) }

    /// Where the next element starts; at the end, the error Foundation throws for asking for a `type` there.
    private func next(_ type: Any.Type, _ description: String = "Unkeyed container is at end.") throws -> Int {
        guard isAtEnd else { return position }
        let context = DecodingError.Context(codingPath: codingPath + [currentKey], debugDescription: description)
        throw DecodingError.valueNotFound(type, context)
    }

    /// Moves to the next element; past the end only the index moves, as Foundation's does in `decodeIfPresent`.
    private mutating func advance() {
        currentIndex += 1
        if !isAtEnd { position = source.element(after: position) }
    }

    mutating func decodeNil() throws -> Bool {
        guard source.bytes[try next(Never.self)] == UInt8(ascii: "n") else { return false }
        advance()
        return true
    }

    /// Every type's requirement, the scalars' too, which a generic method meets: `unwrap` reads those first.
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try source.unwrap(type, at: try next(type), parent: node, key: currentKey)
        advance()
        return value
    }

    // The protocol's `decodeIfPresent` for these, which Foundation keeps too, does not move past the end.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try nextInteger(type) }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try nextInteger(type) }

    private mutating func nextInteger<T: FixedWidthInteger & Decodable>(_ type: T.Type) throws -> T {
        let value = try source.integer(type, at: try next(type), path: node.appending(currentKey).path)
        advance()
        return value
    }

    /// `nil` at the end or for `null`, moving past either, as Foundation does: the protocol's own default for each
    /// scalar does not count an element missing at the end, so each is met here.
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try nextIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try nextIfPresent(type) }

    private mutating func nextIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard !isAtEnd, source.bytes[position] != UInt8(ascii: "n") else {
            advance()
            return nil
        }
        return try decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try readNext(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try readNext((any UnkeyedDecodingContainer).self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try readNext((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.") { $0 }
    }

    /// What `read` makes of a decoder of the next element, moving past it unless `read` throws, as Foundation does.
    private mutating func readNext<Result>(
        _ type: Any.Type, _ atEnd: String = "Unkeyed container is at end.", _ read: (DirectDecoder) throws -> Result
    ) throws -> Result {
        let offset = try next(type, atEnd)
        let result = try read(DirectDecoder(source: source, offset: offset, node: node.appending(currentKey)))
        advance()
        return result
    }
}
