import Foundation
import Persistible

// The differential: the bytes of a file are loaded through the package and through Foundation's `JSONDecoder` for
// each model type, then appended to and edited through the package, cold and warm, and Foundation reads what each
// write left. The rules it holds the package to:
//
// - a load succeeds exactly when Foundation's does, with equal values; which error each reports may differ (the
//   package reports a file that is not JSON by its syntax error where Foundation may report a type first);
// - a lookup by `id` returns the last value Foundation reads with that `id`;
// - after a write that succeeds, Foundation reads the old values with the new one appended, or with one value of that
//   `id` replaced by the edited one, as Foundation reads the encoding of the value given; a write that throws leaves
//   the bytes as they were, and one that throws on a file Foundation reads names a documented reason;
// - no write succeeds on bytes that are not JSON, and no temporary file is left.
//
// A difference that the defects being fixed explain is marked with the defect (`Known`), so that the test and the
// fuzzer keep failing on every other one while those are open.

/// One disagreement between the package and Foundation on one input.
struct Difference: CustomStringConvertible, Sendable {
    /// An open defect that explains a difference, named where the checker classifies it while a fix is under
    /// way; none is open now, so every difference fails.
    struct Known: Hashable, Sendable {
        var rawValue: String

        /// Bytes that are not JSON where no type reads them (a key that is not UTF-8, a raw control character, a
        /// number written `0-7` in an unknown member), which Foundation, reading lazily, reads: a type with
        /// `archiveDefaults` throws there, with their syntax error, where Foundation reads them with the defaults filled.
        static let defaultsBesideRefusedText = Known(rawValue: "archiveDefaults beside bytes that are not JSON")

        static func refusal<Model: DifferentialModel>(of _: Model.Type, _ facts: InputFacts) -> Known? {
            Model.archiveDefaults != nil && !facts.isJSON ? .defaultsBesideRefusedText : nil
        }
    }

    var model: String
    /// `load`, `load(default:)`, `lookup`, or a write: `append` or `update`, `cold` or `warm`.
    var path: String
    var detail: String
    var known: Known?

    var description: String {
        "\(model) \(path): \(detail)" + (known.map { " [known: \($0.rawValue)]" } ?? "")
    }
}

/// Runs the differential on inputs, each in a directory of its own under `directory`.
struct DifferentialCheck: Sendable {
    let directory: URL
    private let counter = Counter()

    private final class Counter: @unchecked Sendable {
        // Used from the one thread that runs the check.
        var next = 0
    }

    init(directory: URL) {
        self.directory = directory
    }

    /// Every difference between the package and Foundation on `bytes`, for every model type or the one named; the
    /// loads alone unless `writes`.
    func differences(in bytes: Data, model: String? = nil, writes: Bool = true) -> [Difference] {
        var found: [Difference] = []
        let facts = InputFacts(bytes)
        // A documented difference (Guarantees): `0e2` is JSON, which the package reads and `JSONDecoder` refuses.
        guard !facts.holdsZeroWithPositiveExponent else { return [] }
        func run<Model: DifferentialModel>(_ type: Model.Type) {
            if model == nil || model == "\(type)" { found += differences(type, bytes, facts, writes: writes) }
        }
        run(FlatRecord.self)
        run(NestedRecord.self)
        run(StampedRecord.self)
        run(TaggedRecord.self)
        run(SnakeRecord.self)
        run(TodoRecord.self)
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            run(WideRecord.self)
        }
        return found
    }

    // MARK: - One model

    private enum Write: String, CaseIterable {
        case append, update
    }

    private func differences<Model: DifferentialModel>(
        _ model: Model.Type, _ bytes: Data, _ facts: InputFacts, writes: Bool
    ) -> [Difference] {
        var found: [Difference] = []
        let reference = Result { try Model.foundationRead(bytes) }
        let name = "\(Model.self)"
        func note(_ path: String, _ detail: String, known: Difference.Known? = nil) {
            found.append(Difference(model: name, path: path, detail: detail, known: known))
        }

        // Loads and lookups.
        withFile(holding: bytes, for: Model.self) { _ in
            let loaded = Result { try Model.load() }
            switch (loaded, reference) {
            case (.success(let ours), .success(let theirs)):
                if ours != theirs { note("load", "read \(ours), Foundation \(theirs)") }
            case (.success(let ours), .failure(let error)):
                note("load", "read \(ours) where Foundation throws \(error)",
                    known: nil)
            case (.failure(let error), .success(let theirs)):
                note("load", "throws \(error) where Foundation reads \(theirs)",
                    known: Difference.Known.refusal(of: Model.self, facts))
            case (.failure, .failure): break
            }

            guard case .success(let theirs) = reference else { return }
            // The last value with each of the first and the last identity, cold and then warm.
            let ids = [theirs.values.first?.id, theirs.values.last?.id].compactMap { $0 }
            for (index, id) in ids.enumerated() {
                if index == 0 { Model.clearArchiveCache() } else { _ = try? Model.load() }
                let expected = theirs.values.last { $0.id == id }
                // An id that several records hold is refused, naming them (Guarantees, "One identity, one record").
                let repeated = theirs.values.filter { $0.id == id }.count > 1
                let path = index == 0 ? "lookup, cold" : "lookup, warm"
                do {
                    let value = try Model.loadFromFile(id: id)
                    if repeated {
                        note(path, "\(id), which several records hold, gives \(String(describing: value))")
                    } else if value != expected {
                        note(path, "\(id) gives \(String(describing: value)), Foundation \(String(describing: expected))")
                    }
                } catch let error as PersistenceError where repeated && error.reason.isRepeatedIdentity {
                    continue
                } catch {
                    note(path, "\(id) throws \(error) where Foundation reads \(String(describing: expected))",
                        known: Difference.Known.refusal(of: Model.self, facts))
                }
            }
        }

        // A settings load: the file's single value, with any key it lacks from the default.
        withFile(holding: bytes, for: Model.self) { _ in
            let fallback = Model.fresh(after: [])
            let loaded = Result { try Model.loadFromFile(default: fallback) }
            switch (loaded, reference) {
            case (.success(let ours), .success(.single(let theirs))):
                if ours != theirs { note("load(default:)", "read \(ours), Foundation \(theirs)") }
            case (.success(let ours), .success(.array(let theirs))):
                note("load(default:)", "read \(ours) from an array Foundation reads as \(theirs)")
            case (.success(let ours), .failure(let error)) where !facts.isJSON:
                note("load(default:)", "read \(ours) where Foundation throws \(error), and the bytes are not JSON",
                    known: nil)
            case (.failure(let error), .success(.single(let theirs))):
                note("load(default:)", "throws \(error) where Foundation reads \(theirs)",
                    known: Difference.Known.refusal(of: Model.self, facts))
            default: break
            }
        }

        // Writes, each on a fresh copy of the bytes, cold (nothing in memory) and warm (after a load).
        guard writes else { return found }
        for warm in [false, true] {
            for write in Write.allCases {
                found += differences(write, warm: warm, Model.self, bytes, reference, facts)
            }
        }
        return found
    }

    private func differences<Model: DifferentialModel>(
        _ write: Write, warm: Bool, _ model: Model.Type, _ bytes: Data,
        _ reference: Result<PersistenceData<Model>, any Error>, _ facts: InputFacts
    ) -> [Difference] {
        let path = "\(write.rawValue), \(warm ? "warm" : "cold")"
        var found: [Difference] = []
        func note(_ detail: String, known: Difference.Known?) {
            found.append(Difference(model: "\(Model.self)", path: path, detail: detail, known: known))
        }

        let stored = try? reference.get()
        let values = stored?.values ?? []
        let value: Model
        switch write {
        case .append: value = Model.fresh(after: values)
        case .update:
            // A record whose identity the file holds twice, if there is one: where a write can lose the other copy.
            let ids = values.map(\.id)
            guard let first = values.first(where: { value in ids.filter { $0 == value.id }.count > 1 }) ?? values.first
            else { return [] }
            value = first.edited()
        }
        // What Foundation reads of the value as the package's encoder writes it.
        guard let encoded = try? Model.archiveEncoder.encode(value),
            let written = try? Model.archiveDecoder.decode(Model.self, from: encoded)
        else { return [] }

        // Which of the open defects a difference on this file may come from.
        let known = Difference.Known.refusal(of: Model.self, facts)

        withFile(holding: bytes, for: Model.self) { directory in
            if warm { _ = try? Model.load() } else { Model.clearArchiveCache() }
            let result = Result { try value.saveToFile() }
            let after = (try? Data(contentsOf: Model.archiveUrl)) ?? Data()
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0 != Model.archiveUrl.lastPathComponent && !$0.hasSuffix(".lock") }
            if !left.isEmpty { note("left \(left) beside the file", known: known) }

            switch (result, stored) {
            case (.success(let wrote), let stored?):
                let expectations = expected(after: write, of: written, on: stored)
                if expectations.isEmpty {
                    if wrote || after != bytes { note("wrote for a value the file holds already", known: known) }
                    return
                }
                guard wrote else {
                    note("wrote nothing; Foundation reads \(stored)", known: known)
                    return
                }
                do {
                    let read = try Model.foundationRead(after)
                    if !expectations.contains(read) {
                        note("Foundation reads \(read) after writing \(written) to \(stored)", known: known)
                        return
                    }
                } catch {
                    note("Foundation throws \(error) after writing \(written) to \(stored)", known: known)
                    return
                }
                Model.clearArchiveCache()
                do {
                    let reloaded = try Model.load()
                    if !expectations.contains(reloaded) { note("then loads \(reloaded)", known: known) }
                } catch {
                    note("then load throws \(error)", known: known)
                }
            case (.success, nil):
                if after != bytes, !facts.isJSON {
                    note("wrote to bytes that are not JSON; Foundation throws \(String(describing: reference))",
                        known: known)
                }
            case (.failure(let error), let stored):
                if after != bytes { note("threw \(error) and changed the file", known: known) }
                guard let stored else { return }
                if isDocumented(error, write: write, facts) { return }
                // A write of an id that several records hold is refused (Guarantees, "One identity, one record").
                if (error as? PersistenceError)?.reason.isRepeatedIdentity == true,
                    stored.values.filter({ $0.id == value.id }).count > 1
                {
                    return
                }
                note("throws \(error) where Foundation reads \(stored)",
                    known: known)
            }
        }
        return found
    }

    /// What Foundation may read after `write` of `value` to a file it reads as `stored`: empty when the file holds
    /// the value already and nothing is to be written.
    private func expected<Model: DifferentialModel>(
        after write: Write, of value: Model, on stored: PersistenceData<Model>
    ) -> [PersistenceData<Model>] {
        let values = stored.values
        if values.contains(value) { return [] }
        switch write {
        case .append:
            return [.array(values + [value])]
        case .update:
            if case .single = stored { return [.single(value)] }
            // Which copy of a duplicated identity is replaced is the package's to choose; only one is.
            return values.indices.filter { values[$0].id == value.id }.map { index in
                var edited = values
                edited[index] = value
                return .array(edited)
            }
        }
    }

    /// Reasons a write may refuse a file Foundation reads, as the documentation says.
    private func isDocumented(_ error: any Error, write: Write, _ facts: InputFacts) -> Bool {
        guard let error = error as? PersistenceError else { return false }
        switch error.reason {
        // A record changed loses the keys this version does not know; a file whose records the package cannot find
        // in its bytes (UTF-16, a control character in a string) is written whole, so an append changes them all.
        case .unknownKeysWouldBeLost: return write == .update || !facts.isStrictJSON
        default: return false
        }
    }

    // MARK: - Files

    /// Runs `body` with a fresh directory as the archive directory, holding `bytes` in the model's file, and
    /// removes it, and what this process remembers of it, afterwards.
    private func withFile<Model: DifferentialModel>(
        holding bytes: Data, for model: Model.Type, _ body: (URL) -> Void
    ) {
        counter.next += 1
        let folder = directory.appendingPathComponent("\(counter.next)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        withArchiveDirectory(folder) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try bytes.write(to: Model.archiveUrl)
            } catch {
                fatalError("cannot write the input to \(folder.path): \(error)")
            }
            Model.clearArchiveCache()
            body(folder)
            Model.clearArchiveCache()
        }
    }
}

// MARK: - What the input is

/// What the differential needs to know of an input beyond what each decoder reads of it.
struct InputFacts {
    let bytes: Data
    /// Whether the bytes are JSON as RFC 8259 has it, in UTF-8 (a byte order mark allowed): the form in which the
    /// package finds records in a file. Foundation reads more (UTF-16, trailing commas, control characters).
    let isStrictJSON: Bool
    /// Whether the bytes are JSON, strictly or as Foundation reads more, whatever numbers they hold.
    let isJSON: Bool

    init(_ bytes: Data) {
        self.bytes = bytes
        var validator = StrictValidator(bytes: Array(bytes))
        isStrictJSON = validator.validate()
        isJSON = isStrictJSON || (try? JSONDecoder().decode(JSONValueShape.self, from: bytes)) != nil
            || (try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])) != nil
    }

    /// Whether a number in the bytes is a zero with a positive exponent (`0e2`, `-0E+1`), which `JSONDecoder` refuses
    /// as not JSON though RFC 8259 allows it.
    var holdsZeroWithPositiveExponent: Bool {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        return bytes.indices.contains { index in
            guard bytes[index] == UInt8(ascii: "0"), index + 2 < bytes.endIndex,
                bytes[index + 1] | 0x20 == UInt8(ascii: "e"),
                digits.contains(bytes[index + 2]) || bytes[index + 2] == UInt8(ascii: "+")
            else { return false }
            let before = index > bytes.startIndex ? bytes[index - 1] : UInt8(ascii: " ")
            return !digits.contains(before) && before != UInt8(ascii: ".")
        }
    }

    /// Whether the bytes start as UTF-16 or UTF-32 would: a byte order mark, or a zero byte among the first two.
    var looksLikeUTF16: Bool {
        let head = Array(bytes.prefix(2))
        return head.contains(0) || head == [0xFF, 0xFE] || head == [0xFE, 0xFF]
    }

    /// Whether an object in the bytes (read as UTF-8) holds one key twice, or two keys that the snake-case strategy
    /// reads as one.
    func hasDuplicateKeys(convertingSnakeCase: Bool) -> Bool {
        var scanner = KeyScanner(bytes: Array(bytes))
        return scanner.findsDuplicate { key in
            convertingSnakeCase ? key.replacingOccurrences(of: "_", with: "").lowercased() : key
        }
    }
}

/// Any JSON value, to tell JSON from what is not.
private enum JSONValueShape: Decodable {
    case value

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            while !array.isAtEnd { _ = try array.decode(JSONValueShape.self) }
        } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
            for key in object.allKeys { _ = try object.decode(JSONValueShape.self, forKey: key) }
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() || (try? container.decode(Bool.self)) != nil
                || (try? container.decode(String.self)) != nil || (try? container.decode(Double.self)) != nil
            {
                self = .value
                return
            }
            _ = try container.decode(Decimal.self)
        }
        self = .value
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// RFC 8259's grammar, on bytes: whether they hold one JSON value and whitespace.
private struct StrictValidator {
    let bytes: [UInt8]
    var offset = 0
    var depth = 0

    mutating func validate() -> Bool {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        guard String(bytes: bytes, encoding: .utf8) != nil, value() else { return false }
        skipSpace()
        return offset == bytes.count
    }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipSpace() {
        while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { offset += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        offset += 1
        return true
    }

    private mutating func value() -> Bool {
        skipSpace()
        guard let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "{"):
            return container(closing: UInt8(ascii: "}")) { validator in
                validator.skipSpace()
                guard validator.string() else { return false }
                validator.skipSpace()
                return validator.take(UInt8(ascii: ":")) && validator.value()
            }
        case UInt8(ascii: "["): return container(closing: UInt8(ascii: "]")) { $0.value() }
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func container(closing: UInt8, _ element: (inout StrictValidator) -> Bool) -> Bool {
        offset += 1
        depth += 1
        defer { depth -= 1 }
        guard depth < 512 else { return false }
        skipSpace()
        if take(closing) { return true }
        repeat {
            guard element(&self) else { return false }
            skipSpace()
        } while take(UInt8(ascii: ","))
        return take(closing)
    }

    private mutating func literal(_ word: String) -> Bool {
        guard bytes[offset...].starts(with: word.utf8) else { return false }
        offset += word.utf8.count
        return true
    }

    private mutating func string() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while let byte = current {
            offset += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case ..<0x20: return false
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return false }
                offset += 1
                if escaped == UInt8(ascii: "u") {
                    guard offset + 4 <= bytes.count,
                        bytes[offset..<offset + 4].allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0
                            || UInt8(ascii: "a")...UInt8(ascii: "f") ~= $0 || UInt8(ascii: "A")...UInt8(ascii: "F") ~= $0 })
                    else { return false }
                    offset += 4
                } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                    return false
                }
            default: continue
            }
        }
        return false
    }

    private mutating func number() -> Bool {
        _ = take(UInt8(ascii: "-"))
        if !take(UInt8(ascii: "0")) {
            guard digits() else { return false }
        }
        if take(UInt8(ascii: ".")), !digits() { return false }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
            guard digits() else { return false }
        }
        return true
    }

    private mutating func digits() -> Bool {
        let start = offset
        while let byte = current, UInt8(ascii: "0")...UInt8(ascii: "9") ~= byte { offset += 1 }
        return offset > start
    }
}

/// Finds the keys of each object in UTF-8 bytes, leniently: it never fails, and reads what it can.
private struct KeyScanner {
    let bytes: [UInt8]
    var offset = 0

    mutating func findsDuplicate(_ normalized: (String) -> String) -> Bool {
        // One entry for each open container: the keys of an object (nil for an array), and whether a key comes next.
        var stack: [(keys: Set<String>?, expectsKey: Bool)] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append((keys: [], expectsKey: true))
                offset += 1
            case UInt8(ascii: "["):
                stack.append((keys: nil, expectsKey: false))
                offset += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
                offset += 1
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].keys != nil { stack[last].expectsKey = true }
                offset += 1
            case UInt8(ascii: "\""):
                let string = readString()
                if let last = stack.indices.last, stack[last].keys != nil, stack[last].expectsKey {
                    stack[last].expectsKey = false
                    if stack[last].keys!.insert(normalized(string)).inserted == false { return true }
                }
            default:
                offset += 1
            }
        }
        return false
    }

    /// The string that starts at `offset`, its escapes read; `offset` moves past it.
    private mutating func readString() -> String {
        offset += 1
        var units: [UInt16] = []
        var raw: [UInt8] = []
        func flushRaw() {
            units += String(decoding: raw, as: UTF8.self).utf16
            raw.removeAll()
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\"), offset < bytes.count else {
                raw.append(byte)
                continue
            }
            flushRaw()
            let escaped = bytes[offset]
            offset += 1
            switch escaped {
            case UInt8(ascii: "u"):
                let digits = bytes[offset..<min(offset + 4, bytes.count)]
                offset += digits.count
                units.append(UInt16(String(decoding: digits, as: UTF8.self), radix: 16) ?? 0xFFFD)
            case UInt8(ascii: "n"): units.append(0x0A)
            case UInt8(ascii: "t"): units.append(0x09)
            case UInt8(ascii: "r"): units.append(0x0D)
            case UInt8(ascii: "b"): units.append(0x08)
            case UInt8(ascii: "f"): units.append(0x0C)
            default: units.append(UInt16(escaped))
            }
        }
        flushRaw()
        return String(decoding: units, as: UTF16.self)
    }
}

extension PersistenceError.Reason {
    var isRepeatedIdentity: Bool {
        if case .repeatedIdentity = self { return true }
        return false
    }
}
