import Foundation

/// Which key of a type a stored key stands for, as the archive's decoder reads it.
///
/// Two spellings are one key when the decoder reads them as one: `"user_name"` and `"userName"` under
/// `.convertFromSnakeCase`, and under any strategy `"cafe\u0301"` and `"café"`, since the decoder matches keys as
/// Swift strings, which compare by canonical equivalence. Defaults must not fill a key that a record holds under
/// another spelling, nor a write keep the old spelling beside the new one.
///
/// A reference, so that what it learns from the decoder is kept for the rest of the file's records; made for one
/// operation and never shared.
final class KeyReading {
    private let strategy: JSONDecoder.KeyDecodingStrategy
    private let decoder: JSONDecoder
    /// What the decoder said each key reads as, for a strategy it alone knows how to apply.
    private var asked: [String: String] = [:]

    init(_ decoder: JSONDecoder) {
        self.decoder = decoder
        strategy = decoder.keyDecodingStrategy
    }

    /// Whether every key reads as it is spelled: keys that are plain ASCII are then one key only when their bytes
    /// are the same.
    var readsAsSpelled: Bool {
        if case .useDefaultKeys = strategy { return true }
        return false
    }

    /// The key that `key`, unescaped, reads as in an object at `path`, the keys above it as the type reads them.
    func read(_ key: String, at path: [String]) -> String {
        switch strategy {
        case .useDefaultKeys:
            return key
        case .custom(let convert):
            return convert((path + [key]).map(PathKey.init(stringValue:))).stringValue
        default:
            // `.convertFromSnakeCase`, whose algorithm is Foundation's own: ask the decoder what it reads.
            if let known = asked[key] { return known }
            let read = (try? JSONEncoder().encode([key: 0])).flatMap { try? decoder.decode(ReadKey.self, from: $0) }
            asked[key] = read?.key ?? key
            return read?.key ?? key
        }
    }

    /// Whether the decoder reads `a` and `b`, unescaped, as one key in an object at `path`.
    func same(_ a: String, _ b: String, at path: [String]) -> Bool {
        a == b || (!readsAsSpelled && read(a, at: path) == read(b, at: path))
    }

    private struct ReadKey: Decodable {
        var key: String?
        init(from decoder: any Decoder) throws {
            key = try decoder.container(keyedBy: PathKey.self).allKeys.first?.stringValue
        }
    }

    private struct PathKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
