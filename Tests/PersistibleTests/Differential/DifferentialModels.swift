import Foundation
import Persistible

// The model types the differential reads every input as: each stands for a shape the package decodes differently
// from a plain record, and each reads the same bytes through the package and through Foundation's `JSONDecoder`.
// This file and DifferentialCheck.swift are also compiled into the libFuzzer target (see Fuzz/run), so they use the
// package's public API alone.

/// A model type of the differential: what Foundation reads of a file, and the values a write adds or edits.
protocol DifferentialModel: Persistible, Codable, Hashable, Identifiable, Sendable {
    /// What Foundation's decoder reads of the bytes, as the package's `load()` must: an array of the type, else a
    /// single value. A type that declares defaults fills what a record lacks, as the package promises to.
    static func foundationRead(_ bytes: Data) throws -> PersistenceData<Self>

    /// A value whose `id` none of `values` holds.
    static func fresh(after values: [Self]) -> Self

    /// This value with a field other than its `id` changed.
    func edited() -> Self
}

extension DifferentialModel {
    static func foundationRead(_ bytes: Data) throws -> PersistenceData<Self> {
        try readingEither(bytes, array: { try archiveDecoder.decode([Self].self, from: $0) },
            single: { try archiveDecoder.decode(Self.self, from: $0) })
    }

    /// Writes that wait for no disk: the differential is about contents, not durability.
    static var archiveDurability: Durability { .noSync }
}

/// An array if `array` reads one, else a single value; what fails is the error of the form the bytes open with.
private func readingEither<Model>(
    _ bytes: Data, array: (Data) throws -> [Model], single: (Data) throws -> Model
) throws -> PersistenceData<Model> {
    let arrayError: any Error
    do {
        return .array(try array(bytes))
    } catch {
        arrayError = error
    }
    do {
        return .single(try single(bytes))
    } catch {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        let opensArray = text.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "[")
        throw opensArray ? arrayError : error
    }
}

/// The smallest integer `id` above every one in `values`.
private func nextID<Model: DifferentialModel>(after values: [Model]) -> Int where Model.ID == Int {
    (values.map(\.id).max() ?? 0).addingReportingOverflow(1).partialValue
}

/// Flat records: the common scalars, some optional.
struct FlatRecord: DifferentialModel {
    var id: Int
    var name: String
    var score: Double
    var active: Bool
    var count: Int64?
    var ratio: Float?
    var small: Int8?
    var big: UInt64?

    static func fresh(after values: [Self]) -> Self {
        Self(id: nextID(after: values), name: "fresh", score: 0.5, active: true, count: -3, ratio: nil, small: 7, big: nil)
    }

    /// Not the name, so that a record holding its name twice keeps the one read.
    func edited() -> Self {
        var copy = self
        copy.score += 1
        return copy
    }
}

/// Nested optionals and collections.
struct NestedRecord: DifferentialModel {
    struct Address: Codable, Hashable, Sendable {
        var street: String
        var zip: String?
        var geo: [Double]?
    }

    struct Child: Codable, Hashable, Sendable {
        var name: String
        var age: UInt8?
    }

    var id: Int
    var tags: [String]
    var address: Address?
    var scores: [String: Int]
    var matrix: [[Int16]]?
    var children: [Child]?
    var flags: Set<Int16>?
    var notes: [String: [String: Bool]]?

    static func fresh(after values: [Self]) -> Self {
        Self(
            id: nextID(after: values), tags: ["new"], address: Address(street: "Main", zip: nil, geo: [1.5, -2]),
            scores: ["a": 1], matrix: [[1], []], children: [Child(name: "c", age: 3)], flags: [2], notes: nil
        )
    }

    func edited() -> Self {
        var copy = self
        copy.tags.append("edited")
        return copy
    }
}

/// Dates, data, URLs, UUIDs and decimals, which Foundation's decoder reads specially.
struct StampedRecord: DifferentialModel {
    var id: UUID
    var created: Date
    var blob: Data
    var link: URL?
    var amount: Decimal?
    var history: [Date]?

    static func fresh(after values: [Self]) -> Self {
        let taken = Set(values.map(\.id))
        let id = (0...).lazy.map { UUID(uuidString: "00000000-0000-4000-8000-\(String(100_000_000_000 + $0))")! }
            .first { !taken.contains($0) }!
        return Self(id: id, created: Date(timeIntervalSinceReferenceDate: 12.25), blob: Data([0, 1, 255]),
            link: URL(string: "https://example.com/a?b=c"), amount: Decimal(string: "12.34"), history: nil)
    }

    func edited() -> Self {
        var copy = self
        copy.blob.append(42)
        return copy
    }
}

/// Enums: raw values, associated values, and one that tries several types in turn.
struct TaggedRecord: DifferentialModel {
    enum Kind: String, Codable, Hashable, Sendable { case task, note, event }
    enum Level: Int, Codable, Hashable, Sendable { case low = 1, high = 2 }
    enum Shape: Codable, Hashable, Sendable {
        case circle(radius: Double)
        case square(Int)
        case empty
    }

    /// A value written as whichever JSON scalar it is.
    enum Loose: Codable, Hashable, Sendable {
        case none
        case flag(Bool)
        case int(Int)
        case double(Double)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .none
            } else if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else if let int = try? container.decode(Int.self) {
                self = .int(int)
            } else if let double = try? container.decode(Double.self) {
                self = .double(double)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .none: try container.encodeNil()
            case .flag(let flag): try container.encode(flag)
            case .int(let int): try container.encode(int)
            case .double(let double): try container.encode(double)
            case .text(let text): try container.encode(text)
            }
        }
    }

    var id: Int
    var kind: Kind
    var level: Level?
    var shape: Shape
    var loose: Loose
    var history: [Kind]

    static func fresh(after values: [Self]) -> Self {
        Self(id: nextID(after: values), kind: .note, level: .high, shape: .circle(radius: 2), loose: .text("x"),
            history: [.task])
    }

    func edited() -> Self {
        var copy = self
        copy.history.append(.event)
        return copy
    }
}

/// Keys written in snake case, read back through the key strategies.
struct SnakeRecord: DifferentialModel {
    var id: Int
    var firstName: String
    var lastSeenAt: Double?
    var isAdmin: Bool
    var homeAddress: [String: String]?

    static let archiveEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }()

    static let archiveDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    static func fresh(after values: [Self]) -> Self {
        Self(id: nextID(after: values), firstName: "Fresh", lastSeenAt: 1.5, isAdmin: false, homeAddress: ["city": "A"])
    }

    func edited() -> Self {
        var copy = self
        copy.isAdmin.toggle()
        return copy
    }
}

/// A to-do item whose `archiveDefaults` fill every field a record lacks, at every depth, except its identity.
struct TodoRecord: DifferentialModel {
    struct Meta: Codable, Hashable, Sendable {
        var priority: Int
        var note: String
    }

    var id: Int
    var title: String
    var done: Bool
    var meta: Meta
    var tags: [String]

    static let defaults = TodoRecord(id: 0, title: "", done: false, meta: Meta(priority: 0, note: ""), tags: [])

    static var archiveDefaults: TodoRecord? { defaults }

    static func fresh(after values: [Self]) -> Self {
        Self(id: nextID(after: values), title: "fresh", done: false, meta: Meta(priority: 2, note: "n"), tags: [])
    }

    func edited() -> Self {
        var copy = self
        copy.done.toggle()
        return copy
    }

    /// Foundation's reading of a record with the defaults filled in: a key the record lacks takes the default's
    /// value, a key it holds (even as `null`) is decoded as written, and `id` is never filled.
    private struct Filled: Decodable {
        private enum Key: String, CodingKey { case id, title, done, meta, tags, priority, note }

        let value: TodoRecord

        private struct FilledMeta: Decodable {
            let value: Meta

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                let defaults = TodoRecord.defaults.meta
                value = Meta(
                    priority: try container.decodeFilled(Int.self, .priority, defaults.priority),
                    note: try container.decodeFilled(String.self, .note, defaults.note)
                )
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let defaults = TodoRecord.defaults
            let meta = try container.contains(.meta) ? container.decode(FilledMeta.self, forKey: .meta).value
                : defaults.meta
            value = TodoRecord(
                id: try container.decode(Int.self, forKey: .id),
                title: try container.decodeFilled(String.self, .title, defaults.title),
                done: try container.decodeFilled(Bool.self, .done, defaults.done),
                meta: meta,
                tags: try container.decodeFilled([String].self, .tags, defaults.tags)
            )
        }
    }

    static func foundationRead(_ bytes: Data) throws -> PersistenceData<Self> {
        try readingEither(bytes, array: { try archiveDecoder.decode([Filled].self, from: $0).map(\.value) },
            single: { try archiveDecoder.decode(Filled.self, from: $0).value })
    }
}

extension KeyedDecodingContainer {
    fileprivate func decodeFilled<T: Decodable>(_ type: T.Type, _ key: Key, _ fill: T) throws -> T {
        try contains(key) ? decode(type, forKey: key) : fill
    }
}

/// 128-bit integers, which Foundation's decoder reads.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct WideRecord: DifferentialModel {
    var id: Int
    var label: String?
    var wide: Int128?
    var unsignedWide: UInt128?

    /// Without wide integers, so that what a write adds does not hide how the file's own are read.
    static func fresh(after values: [Self]) -> Self {
        Self(id: nextID(after: values), label: "fresh", wide: nil, unsignedWide: nil)
    }

    func edited() -> Self {
        var copy = self
        copy.label = (copy.label ?? "") + "+"
        return copy
    }
}
