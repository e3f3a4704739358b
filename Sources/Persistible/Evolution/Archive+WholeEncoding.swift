import Foundation

// MARK: - Encoding a file whole

extension Archive {
    /// Throws unless writing `records` encoded whole, in place of the file whose bytes are `stored`, keeps everything
    /// the stored records it keeps held: for files whose records cannot be found in their bytes (a UTF-8 byte order
    /// mark, a trailing comma, UTF-16 or UTF-32, JSON5), where no stored bytes can be kept.
    ///
    /// Each stored record the write keeps, changed or not, is compared with the encoding of the value read from it:
    /// a key it lacks, an array of another length or other values, or another scalar is something the type did not
    /// read, which the write would lose. Formatting and JSON5 comments are not compared, and not kept.
    ///
    /// - Parameters:
    ///   - isSingleValue: Whether the file holds one value rather than an array.
    ///   - sources: Where each of `records` came from.
    ///   - originals: The value each changed original record held when read, by original position.
    /// - Throws: ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` naming what would be lost, and
    ///   ``PersistenceError/Reason/encodingFailed(detail:)``.
    func requireNothingLostEncodingWhole(
        _ stored: Data, isSingleValue: Bool, storedCount: Int, records: [Value], sources: [RecordSource],
        originals: [Int: Value]
    ) throws(PersistenceError) {
        var kept: [(original: Int, read: Value)] = []
        var lost: [String] = []
        for (index, source) in sources.enumerated() {
            switch source {
            case .unchanged(let original):
                kept.append((original, records[index]))
            case .changed(let original):
                // A changed record whose value when read is unknown cannot be shown to lose nothing.
                guard let read = originals[original] else {
                    lost.append("[\(original)]")
                    continue
                }
                kept.append((original, read))
            case .new:
                continue
            }
        }
        guard !kept.isEmpty || !lost.isEmpty else { return }
        // A reader as lenient as the file's decoder, and with none of its strategies: it compares JSON, not values.
        let reader = JSONDecoder()
        reader.allowsJSON5 = decoder.allowsJSON5
        let storedRecords: [JSONValue]?
        switch try? reader.decode(JSONValue.self, from: stored) {
        case .array(let elements)? where !isSingleValue: storedRecords = elements
        case let tree? where isSingleValue: storedRecords = [tree]
        default: storedRecords = nil
        }
        let known = try? reader.decode([JSONValue].self, from: try encode(array: kept.map(\.read)))
        if let storedRecords, storedRecords.count == storedCount, let known, known.count == kept.count {
            for (position, record) in kept.enumerated() {
                storedRecords[record.original].losses(comparedWith: known[position], at: "[\(record.original)]", &lost)
            }
        } else {
            lost += kept.map { "[\($0.original)]" }
        }
        guard lost.isEmpty else { throw failure(.unknownKeysWouldBeLost(keyPaths: lost)) }
    }
}

/// Any JSON value, decoded by a `JSONDecoder`, which reads every encoding and form the file's decoder reads.
private enum JSONValue: Decodable, Hashable {
    case null
    case bool(Bool)
    case number(Decimal)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Decimal.self) {
            self = .number(number)
        } else if let number = try? container.decode(Double.self) {
            self = .number(Decimal(number))
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Adds to `lost` the paths, as `[3].address.zip` or `[3].tags[]`, where this stored value holds what `known`,
    /// the encoding of the value read from it, does not.
    func losses(comparedWith known: JSONValue, at path: String, _ lost: inout [String]) {
        switch (self, known) {
        case (.object(let members), .object(let knownMembers)):
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                if let knownValue = knownMembers[key] {
                    value.losses(comparedWith: knownValue, at: path + "." + key, &lost)
                } else {
                    lost.append(path + "." + key)
                }
            }
        case (.array(let elements), .array(let knownElements)):
            guard elements != knownElements else { return }
            // A set's elements are encoded in an order that changes from process to process.
            let counts = elements.reduce(into: [:]) { $0[$1, default: 0] += 1 }
            let knownCounts = knownElements.reduce(into: [:]) { $0[$1, default: 0] += 1 }
            if counts != knownCounts { lost.append(path + "[]") }
        default:
            if self != known { lost.append(path) }
        }
    }
}
