import Foundation

/// Random documents of the differential's model types, from a seed: well-formed records first, then the mutations a
/// hand edit, another tool or another version makes (a key twice, a record without `id`, an `id` twice, a trailing
/// comma, numbers written oddly, escapes, unknown keys, a field of another type, UTF-16 and a stray byte after it).
struct DocumentGenerator {
    /// What a document was made as: the model it is meant for, and what was done to it.
    struct Document {
        var model: String
        var mutations: [String]
        var bytes: Data
    }

    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    static let models = ["FlatRecord", "NestedRecord", "StampedRecord", "TaggedRecord", "SnakeRecord", "TodoRecord",
        "WideRecord"]

    mutating func next() -> Document {
        let model = Self.models[random.below(Self.models.count)]
        var mutations: [String] = []
        var records = (0..<random.below(4)).map { index in record(of: model, id: index + 1) }
        if model == "TodoRecord" { records = records.map { dropSome(of: $0, keeping: ["id"]) } }

        func mutate(_ name: String, _ chance: Int, _ change: (inout [[(String, JSON)]]) -> Bool) {
            guard random.below(100) < chance, change(&records) else { return }
            mutations.append(name)
        }
        mutate("key twice", 12) { records in
            guard let index = records.indices.randomElement(using: &random), let member = records[index].randomElement(using: &random)
            else { return false }
            let twin = (member.0, random.below(2) == 0 ? member.1 : value(ofKey: member.0, in: model))
            records[index].insert(twin, at: random.below(records[index].count + 1))
            return true
        }
        mutate("no id", 8) { records in
            guard let index = records.indices.randomElement(using: &random) else { return false }
            records[index].removeAll { $0.0 == "id" }
            return true
        }
        mutate("id twice", 8) { records in
            guard records.count > 1 else { return false }
            let id = records[0].first { $0.0 == "id" }?.1 ?? .number("1")
            let index = 1 + random.below(records.count - 1)
            records[index] = records[index].map { $0.0 == "id" ? ("id", id) : $0 }
            return true
        }
        mutate("unknown key", 10) { records in
            guard let index = records.indices.randomElement(using: &random) else { return false }
            records[index].append(("extra\(random.below(3))", .array([.number("1"), .object([("k", .null)])])))
            return true
        }
        mutate("another type", 8) { records in
            guard let index = records.indices.randomElement(using: &random),
                let member = records[index].indices.randomElement(using: &random)
            else { return false }
            records[index][member].1 = [.string("5"), .number("5"), .bool(true), .null, .array([]), .object([])]
                .randomElement(using: &random)!
            return true
        }

        var rendering = Rendering()
        if random.below(100) < 6 { rendering.trailingCommas = true; mutations.append("trailing comma") }
        if random.below(100) < 15 { rendering.spaced = true }
        let single = records.count == 1 && random.below(3) == 0
        if single { mutations.append("single value") }
        let document: JSON = single ? .object(records[0]) : .array(records.map { .object($0) })
        var text = rendering.render(document, random: &random)

        if random.below(100) < 4 {
            text = String(text.prefix(random.below(text.count + 1)))
            mutations.append("cut short")
        }
        var bytes = Data(text.utf8)
        if random.below(100) < 8 {
            let bigEndian = random.below(2) == 0
            let mark = random.below(2) == 0
            bytes = Data((mark ? "\u{FEFF}" : "").utf16.flatMap { unit -> [UInt8] in
                bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            } + text.utf16.flatMap { unit -> [UInt8] in
                bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            })
            mutations.append("UTF-16" + (bigEndian ? "BE" : "LE") + (mark ? " with a mark" : ""))
            if random.below(2) == 0 {
                bytes.append(UInt8(truncatingIfNeeded: random.next()))
                mutations.append("stray byte")
            }
        } else if random.below(100) < 3 {
            bytes.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
            mutations.append("byte order mark")
        }
        return Document(model: model, mutations: mutations, bytes: bytes)
    }

    // MARK: - Records

    private mutating func record(of model: String, id: Int) -> [(String, JSON)] {
        let idValue: JSON = model == "StampedRecord" ? .string(uuid()) : integer(Int64(id))
        let fields = Self.fields[model]!.map { key in (key, value(ofKey: key, in: model)) }
        var members = [("id", idValue)] + fields
        // Optional fields are left out or written as null at times.
        members = members.compactMap { member in
            guard Self.optional[model]!.contains(member.0) else { return member }
            switch random.below(4) {
            case 0: return nil
            case 1: return (member.0, .null)
            default: return member
            }
        }
        members.shuffle(using: &random)
        return members
    }

    private mutating func dropSome(of record: [(String, JSON)], keeping: Set<String>) -> [(String, JSON)] {
        record.filter { keeping.contains($0.0) || random.below(3) != 0 }
    }

    private static let fields: [String: [String]] = [
        "FlatRecord": ["name", "score", "active", "count", "ratio", "small", "big"],
        "NestedRecord": ["tags", "address", "scores", "matrix", "children", "flags", "notes"],
        "StampedRecord": ["created", "blob", "link", "amount", "history"],
        "TaggedRecord": ["kind", "level", "shape", "loose", "history"],
        "SnakeRecord": ["first_name", "last_seen_at", "is_admin", "home_address"],
        "TodoRecord": ["title", "done", "meta", "tags"],
        "WideRecord": ["label", "wide", "unsignedWide"],
    ]

    private static let optional: [String: Set<String>] = [
        "FlatRecord": ["count", "ratio", "small", "big"],
        "NestedRecord": ["address", "matrix", "children", "flags", "notes"],
        "StampedRecord": ["link", "amount", "history"],
        "TaggedRecord": ["level"],
        "SnakeRecord": ["last_seen_at", "home_address"],
        "TodoRecord": [],
        "WideRecord": ["label", "wide", "unsignedWide"],
    ]

    private mutating func value(ofKey key: String, in model: String) -> JSON {
        switch (model, key) {
        case (_, "id"): return integer(Int64(random.below(5)))
        case (_, "name"), (_, "first_name"), (_, "title"), (_, "label"), (_, "street"), (_, "note"): return string()
        case (_, "score"), (_, "last_seen_at"): return real()
        case (_, "ratio"): return .number(["0.25", "1.5e2", "-0.0", "3.4028235e38", "1e-45"].randomElement(using: &random)!)
        case (_, "active"), (_, "is_admin"), (_, "done"): return .bool(random.below(2) == 0)
        case (_, "count"): return integer(Int64(bitPattern: random.next()))
        case (_, "small"): return integer(Int64(Int8(truncatingIfNeeded: random.next())))
        case (_, "big"): return .number(String(random.next()))
        case ("NestedRecord", "tags"), ("TodoRecord", "tags"): return .array((0..<random.below(3)).map { _ in string() })
        case (_, "address"):
            return .object([("street", string()), ("zip", random.below(2) == 0 ? .null : string()),
                ("geo", .array([real(), real()]))])
        case (_, "scores"): return .object((0..<random.below(3)).map { _ in (word(), integer(Int64(random.below(100)))) })
        case (_, "matrix"):
            return .array((0..<random.below(3)).map { _ in
                .array((0..<random.below(3)).map { _ in integer(Int64(Int16(truncatingIfNeeded: random.next()))) })
            })
        case (_, "children"):
            return .array((0..<random.below(3)).map { _ in
                .object([("name", string())] + (random.below(2) == 0 ? [("age", integer(Int64(random.below(256))))] : []))
            })
        case (_, "flags"): return .array((0..<random.below(4)).map { _ in integer(Int64(random.below(5))) })
        case (_, "notes"): return .object([(word(), .object([(word(), .bool(random.below(2) == 0))]))])
        case (_, "created"): return real()
        case ("StampedRecord", "history"): return .array((0..<random.below(3)).map { _ in real() })
        case (_, "blob"): return .string(["", "AAEC/w==", "aGVsbG8=", "not base64", "AA\\/A"].randomElement(using: &random)!)
        case (_, "link"): return .string(["https://example.com/a?b=c", "file:///tmp/x", "", "a b", "https:\\/\\/x"]
            .randomElement(using: &random)!)
        case (_, "amount"):
            return .number(["0", "-1.5", "3.14159265358979323846264338327950288", "1e5", "12345678901234567890"]
                .randomElement(using: &random)!)
        case (_, "kind"): return .string(["task", "note", "event", "other"].randomElement(using: &random)!)
        case (_, "level"): return .number(["1", "2", "3", "1.0"].randomElement(using: &random)!)
        case (_, "shape"):
            return [.object([("circle", .object([("radius", real())]))]),
                .object([("square", .object([("_0", integer(Int64(random.below(9))))]))]),
                .object([("empty", .object([]))])].randomElement(using: &random)!
        case (_, "loose"): return [.null, .bool(true), integer(7), real(), string()].randomElement(using: &random)!
        case ("TaggedRecord", "history"):
            return .array((0..<random.below(3)).map { _ in .string(["task", "note", "event"].randomElement(using: &random)!) })
        case (_, "home_address"): return .object([(["home_city", "city", "zip_code"].randomElement(using: &random)!, string())])
        case (_, "meta"):
            var members: [(String, JSON)] = [("priority", integer(Int64(random.below(5)))), ("note", string())]
            members = members.filter { _ in random.below(3) != 0 }
            return .object(members)
        case (_, "wide"):
            return .number(["-170141183460469231731687303715884105728", "170141183460469231731687303715884105727", "0",
                "-1", "9223372036854775808"].randomElement(using: &random)!)
        case (_, "unsignedWide"):
            return .number(["340282366920938463463374607431768211455", "0", "18446744073709551616"]
                .randomElement(using: &random)!)
        default: return .null
        }
    }

    // MARK: - Scalars

    /// An integer, written at times as a number with a fraction or an exponent that is still whole.
    private mutating func integer(_ value: Int64) -> JSON {
        switch random.below(12) {
        case 0: return .number("\(value).0")
        case 1: return .number("\(value)e0")
        case 2 where value == 0: return .number("-0")
        case 3: return .number("\(value)0E-1")
        default: return .number("\(value)")
        }
    }

    private mutating func real() -> JSON {
        .number(["0", "1.5", "-2.25e-3", "1E+2", "123456789.125", "5e-324", "1.7976931348623157e308", "0.1", "1e400",
            "1e-400", "-0.0", "2.5E1"].randomElement(using: &random)!)
    }

    private mutating func word() -> String {
        ["a", "b", "key", "é", "snake_case", "camelCase", "_x"].randomElement(using: &random)!
    }

    /// A string's JSON text, escaped in the many ways that mean the same characters, and at times in ways that do
    /// not (a lone surrogate).
    private mutating func string() -> JSON {
        let pieces = [
            "plain", "é", "\\u00e9", "\\ud83d\\ude00", "😀", "\\n", "\\\"", "\\\\", "\\/", "/", "\\t", " ", "\\u0000",
            "\\ud800", "\\u0041",
        ]
        return .string((0..<random.below(4)).map { _ in pieces.randomElement(using: &random)! }.joined())
    }

    private mutating func uuid() -> String {
        let hex = String(format: "%016llX%016llX", random.next(), random.next())
        let characters = Array(hex)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        let text = parts.joined(separator: "-")
        return random.below(6) == 0 ? text.lowercased() : text
    }
}

// MARK: - JSON text

/// A JSON value whose strings and numbers are kept as the text to write, so that they can be written oddly.
indirect enum JSON {
    case null
    case bool(Bool)
    case number(String)
    /// The text between the quotes, escapes included.
    case string(String)
    case array([JSON])
    case object([(String, JSON)])
}

private struct Rendering {
    var trailingCommas = false
    var spaced = false

    func render(_ value: JSON, random: inout SplitMix64) -> String {
        let space = spaced ? [" ", "\n  ", "\t", "\r\n"].randomElement(using: &random)! : ""
        switch value {
        case .null: return "null"
        case .bool(let bool): return bool ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return "\"\(text)\""
        case .array(let values):
            let items = values.map { render($0, random: &random) }
            return "[" + space + items.joined(separator: "," + space) + comma(after: items, &random) + "]"
        case .object(let members):
            let items = members.map { "\"\($0.0)\"" + space + ":" + space + render($0.1, random: &random) }
            return "{" + space + items.joined(separator: "," + space) + comma(after: items, &random) + space + "}"
        }
    }

    private func comma(after items: [String], _ random: inout SplitMix64) -> String {
        trailingCommas && !items.isEmpty && random.below(2) == 0 ? "," : ""
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`.
    fileprivate mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
