import Foundation
import Persistible

/// A document of another shape than the four-field records, made the same on every run from a seeded generator.
protocol ShapeRecord: Persistible, Codable, Hashable, Sendable, Identifiable {
    static var shapeName: String { get }

    init(index: Int, generator: inout SplitMix64)
}

extension ShapeRecord {
    static func make(count: Int) -> [Self] {
        var generator = SplitMix64(seed: 0x5EED_5A9E)
        return (0..<count).map { Self(index: $0, generator: &generator) }
    }
}

extension SplitMix64 {
    /// The value about half the time, nil otherwise: the sparse shape's optional fields.
    mutating func sometimes<Value>(_ value: Value) -> Value? {
        Bool.random(using: &self) ? value : nil
    }
}

/// Long arrays of numbers: doubles that need all 17 digits, and integers of every magnitude and sign.
struct NumbersShape: ShapeRecord {
    var id: Int
    var readings: [Double]
    var counts: [Int]

    static let shapeName = "numbers"

    init(index: Int, generator: inout SplitMix64) {
        id = index
        readings = (0..<100).map { _ in Double.random(in: -1_000...1_000, using: &generator) }
        counts = (0..<100).map { _ in Int(truncatingIfNeeded: generator.next()) >> (generator.next() % 64) }
    }
}

/// Nested objects whose optional fields are about half nil: left out by the synthesized encoder, and written as
/// `null` by `Contact`'s own.
struct SparseShape: ShapeRecord {
    var id: Int
    var title: String?
    var rating: Double?
    var archived: Bool?
    var owner: Contact?
    var contacts: [Contact]

    static let shapeName = "sparse"

    init(index: Int, generator: inout SplitMix64) {
        id = index
        title = generator.sometimes("Project \(index)")
        rating = generator.sometimes(Double(index % 50) / 10)
        archived = generator.sometimes(index % 3 == 0)
        let owner = Contact(index: index, generator: &generator)
        self.owner = generator.sometimes(owner)
        contacts = (0..<4).map { Contact(index: index + $0, generator: &generator) }
    }
}

struct Contact: Codable, Hashable, Sendable {
    var name: String?
    var email: String?
    var age: Int?
    var verified: Bool?
    var address: Address?

    init(index: Int, generator: inout SplitMix64) {
        name = generator.sometimes("Contact \(index)")
        email = generator.sometimes("contact\(index)@example.com")
        age = generator.sometimes(18 + index % 60)
        verified = generator.sometimes(index % 2 == 0)
        let address = Address(index: index, generator: &generator)
        self.address = generator.sometimes(address)
    }

    // Every key written, nil as an explicit null, as some encoders do; the synthesized decoder reads both forms.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(email, forKey: .email)
        try container.encode(age, forKey: .age)
        try container.encode(verified, forKey: .verified)
        try container.encode(address, forKey: .address)
    }
}

struct Address: Codable, Hashable, Sendable {
    var street: String?
    var city: String?
    var floor: Int?
    var latitude: Double?

    init(index: Int, generator: inout SplitMix64) {
        street = generator.sometimes("\(index % 200) Independence Avenue")
        city = generator.sometimes(["Accra", "Kumasi", "Tamale", "Cape Coast"][index % 4])
        floor = generator.sometimes(index % 12)
        let latitude = Double.random(in: 4...11, using: &generator)
        self.latitude = generator.sometimes(latitude)
    }
}

/// Dictionaries keyed by strings: many tallies, and labels.
struct DictionaryShape: ShapeRecord {
    var id: Int
    var tallies: [String: Int]
    var labels: [String: String]

    static let shapeName = "dictionary"

    init(index: Int, generator: inout SplitMix64) {
        id = index
        // Each key holds its position, so the keys of a record differ while their random suffixes may repeat.
        tallies = Dictionary(uniqueKeysWithValues: (0..<60).map { position in
            ("sensor-\(position)-\(generator.next() % 1_000)", Int.random(in: 0...1_000_000, using: &generator))
        })
        labels = Dictionary(uniqueKeysWithValues: (0..<20).map { position in
            ("label-\(position)", "value \(generator.next() % 100_000) of record \(index)")
        })
    }
}

/// Long strings beyond ASCII, with quotes, backslashes, line breaks, tabs and control characters to escape.
struct TextShape: ShapeRecord {
    var id: Int
    var title: String
    var body: String
    var notes: [String]

    static let shapeName = "text"

    private static let fragments = [
        "Crème brûlée à la façon de Zoë", "naïve café, résumé, São Paulo", "東京都渋谷区の天気は晴れです",
        "北京欢迎你，上海也欢迎你", "Ελληνικά και русский текст", "😀 🎉 👍🏽 👨‍👩‍👧 🇬🇭", "She said \"hello\" and left",
        "C:\\Users\\Zoë\\notes.txt", "line one\nline two\r\nline three", "\tindented\twith tabs",
        "bell \u{07}, escape \u{1B}, null \u{00}, unit \u{1F}", "plain ASCII words between the others",
    ]

    init(index: Int, generator: inout SplitMix64) {
        func sentence(_ count: Int) -> String {
            (0..<count).map { _ in Self.fragments.randomElement(using: &generator) ?? "" }.joined(separator: " ")
        }
        id = index
        title = "Nº \(index): " + sentence(2)
        body = sentence(40)
        notes = (0..<4).map { _ in sentence(8) }
    }
}

/// Loading a file of each shape cold, against Foundation decoding the same file.
struct ShapesWorkload {
    let plan: Plan

    func run() throws -> [ShapeResult] {
        [try run(NumbersShape.self), try run(SparseShape.self), try run(DictionaryShape.self), try run(TextShape.self)]
    }

    private func run<Shape: ShapeRecord>(_: Shape.Type) throws -> ShapeResult {
        // As many records as make a file of about the planned size, from the size of a first few encoded.
        let sample = Shape.make(count: 50)
        let bytesPerRecord = try Shape.archiveEncoder.encode(sample).count / sample.count
        let n = max(1, plan.shapeFileBytes / bytesPerRecord)
        progress("document shapes, \(Shape.shapeName), n = \(formatCount(n))")
        let records = Shape.make(count: n)
        try records.saveToFile()
        let file = Shape.archiveUrl
        let fileBytes = try Data(contentsOf: file).count

        var package = Samples()
        var reference = Samples()
        for round in 0..<plan.shapeRepetitions {
            try interleave(round: round, [
                {
                    Shape.clearArchiveCache()
                    var loaded: [Shape] = []
                    package.add(try Stopwatch.seconds { loaded = try Shape.loadListFromFile() })
                    try expect(loaded.count == n, Shape.shapeName, "the package loaded \(loaded.count) of \(n)")
                    try expect(round > 0 || loaded == records, Shape.shapeName, "the package loaded other values")
                },
                {
                    var loaded: [Shape] = []
                    reference.add(try Stopwatch.seconds {
                        loaded = try JSONDecoder().decode([Shape].self, from: Data(contentsOf: file))
                    })
                    try expect(loaded.count == n, Shape.shapeName, "Foundation loaded \(loaded.count) of \(n)")
                    try expect(round > 0 || loaded == records, Shape.shapeName, "Foundation loaded other values")
                },
            ])
        }

        try Shape.deleteFile()
        Shape.clearArchiveCache()
        return ShapeResult(shape: Shape.shapeName, n: n, fileBytes: fileBytes, package: package, reference: reference)
    }
}
