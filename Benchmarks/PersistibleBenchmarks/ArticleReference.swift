import Foundation

// THE REFERENCE, NOT THE LIBRARY.
//
// The algorithm of the 2019 article "Tiny Persistence Library", which the package grew out of, restated here so
// that every append the package makes can be compared with the one the article makes in the same run. It is kept
// faithful on purpose, shortcomings included, because those are what the package is measured against:
//
// - a single value's save first tries to decode the file as one value, and only when that fails with
//   `DecodingError.typeMismatch` reads it again as an array;
// - the array's save then reads and decodes the file once more, merges through a `Set` (losing the order) and
//   re-encodes every value;
// - the bytes are written in place with `Data.write(to:options: [])`: no temporary file, no fsync, no lock.
//
// Two deliberate departures, neither of which changes the work done: the file lives in the benchmark's sandbox
// instead of the app's Documents directory, and the encoder sorts keys as well as pretty-printing, so that the
// article writes the very bytes the package writes and the ratio measures the algorithm, not the formatting.

protocol ArticlePersistible {
    static var fileName: String { get }
}

/// Stands in for the Documents directory that the article writes to.
enum ArticleSandbox {
    @TaskLocal static var directory: URL?
}

extension ArticlePersistible {
    static var archiveUrl: URL {
        guard let directory = ArticleSandbox.directory else {
            fatalError("The article's reference runs only inside ArticleSandbox.$directory.withValue(_:)")
        }
        return directory.appendingPathComponent(fileName).appendingPathExtension("json")
    }

    static func deleteFile() {
        _ = try? FileManager.default.removeItem(at: archiveUrl)
    }
}

extension ArticlePersistible where Self: Codable {
    // A new coder per call, as in the article.
    static func getEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }

    static func getDecoder() -> JSONDecoder {
        JSONDecoder()
    }
}

extension ArticlePersistible where Self: Codable & Hashable {
    func saveToFile() throws {
        do {
            let existing = try Self.loadFromFile()
            if existing != self {
                try [existing, self].saveToFile()
            }
        } catch DecodingError.typeMismatch(_, _) {
            // The file holds an array: read it again as one.
            if var existing = try? Self.loadListFromFile(), !existing.contains(self) {
                existing.append(self)
                try existing.saveToFile()
            }
        } catch {
            // Taken to mean there is no file yet.
            let encoded = try Self.getEncoder().encode(self)
            try encoded.write(to: Self.archiveUrl, options: [])
        }
    }

    static func loadFromFile() throws -> Self {
        let retrieved = try Data(contentsOf: archiveUrl)
        return try getDecoder().decode(Self.self, from: retrieved)
    }

    static func loadListFromFile() throws -> [Self] {
        let retrieved = try Data(contentsOf: archiveUrl)
        return try getDecoder().decode([Self].self, from: retrieved)
    }
}

extension Array where Element: ArticlePersistible & Codable & Hashable {
    func saveToFile() throws {
        guard !isEmpty else { return }
        var merged = self
        if let existing = try? Element.loadListFromFile(), !existing.isEmpty {
            merged.append(contentsOf: existing)
            merged = Array(Set(merged))
        }
        let encoded = try Element.getEncoder().encode(merged)
        try encoded.write(to: Element.archiveUrl, options: [])
    }
}
