import Foundation
import Persistible

/// The article's example type, unchanged.
struct Person: Codable, Hashable, Persistible {
    let name: String
    let age: Int
    let school: String

    static var fileName: String {
        return "person_data"
    }
}

let sam = Person(name: "Samuel", age: 35, school: "Accra Academy")
let amy = Person(name: "Amy", age: 25, school: "Accra Girls")
let maame = Person(name: "Maame", age: 25, school: "Accra High")

/// A type with the default file name.
struct Note: Codable, Hashable, Persistible {
    var text: String
}

/// The record that the StressWriter child process writes; the same declaration lives there.
struct StressRecord: Codable, Hashable, Identifiable, Persistible {
    var id: String
    var payload: String

    static var fileName: String { "stress" }

    init(id: String) {
        self.id = id
        payload = String(repeating: "x", count: 512)
    }
}

/// A type that dates its values and chooses ISO-8601 for them.
struct Event: Codable, Hashable, Persistible {
    var title: String
    var date: Date

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    static var archiveEncoder: JSONEncoder { encoder }
    static var archiveDecoder: JSONDecoder { decoder }
}

/// A type that keeps nothing in memory between operations.
struct Uncached: Codable, Hashable, Persistible {
    var number: Int

    static var cachesArchive: Bool { false }
}

/// A type that skips the fsyncs.
struct Quick: Codable, Hashable, Persistible {
    var number: Int

    static var archiveDurability: Durability { .noSync }
}

/// Loads a type's file as the raw bytes on disk.
func bytes<T: Persistible>(of type: T.Type) throws -> Data {
    try Data(contentsOf: T.archiveUrl)
}

/// Expects `body` to throw a `PersistenceError` and returns it.
func persistenceError(_ body: () throws -> Void) -> PersistenceError? {
    do {
        try body()
        return nil
    } catch {
        return error as? PersistenceError
    }
}

/// What the package stores for `encoded`, an encoder's output: the same JSON with each empty array or object written
/// `[]` or `{}` rather than with a blank line inside, and a final newline, as a text file has.
func storedForm(_ encoded: Data) -> Data {
    var text = String(decoding: encoded, as: UTF8.self)
    for (open, close) in [("[", "]"), ("{", "}")] {
        text = text.replacingOccurrences(of: "\\\(open)\n\n *\\\(close)", with: open + close, options: .regularExpression)
    }
    return Data((text + "\n").utf8)
}
