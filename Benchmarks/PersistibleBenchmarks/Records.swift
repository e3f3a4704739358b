import Persistible

/// The shape every measured record shares, so that one workload can drive the package's types and the article's.
///
/// Each type has the same fields and therefore the same JSON, so every contender reads and writes the same bytes.
protocol BenchmarkRecord: Codable, Hashable, Sendable {
    init(id: Int, name: String, age: Int, school: String)
}

private let schools = ["University of Ghana", "KNUST", "Ashesi University", "University of Cape Coast"]

extension BenchmarkRecord {
    /// A record that differs from every other index's, so an append with a fresh index always adds a value.
    init(index: Int) {
        self.init(id: index, name: "Person \(index)", age: 18 + index % 50, school: schools[index % schools.count])
    }
}

/// Record indices from a first one up, each handed out once: from n up, they are in no file of n records yet, so
/// every append of one adds a value and the file grows by one.
final class FreshIndices {
    private var next: Int

    init(from first: Int) {
        next = first
    }

    func take() -> Int {
        defer { next += 1 }
        return next
    }
}

/// The package, durable: each save is flushed to the disk.
struct Record: BenchmarkRecord, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records" }
}

/// The package with the flushes skipped.
struct NoSyncRecord: BenchmarkRecord, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records-nosync" }
    static var archiveDurability: Durability { .noSync }
}

/// The package with an `Identifiable` record, whose saves replace the stored value with the same `id`; no flushes.
struct IdentifiedRecord: BenchmarkRecord, Identifiable, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records-identified" }
    static var archiveDurability: Durability { .noSync }
}

/// The article's algorithm; deliberately not `Persistible`, so no call can reach the package by mistake.
struct ArticleRecord: BenchmarkRecord, ArticlePersistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "records-article" }
}
