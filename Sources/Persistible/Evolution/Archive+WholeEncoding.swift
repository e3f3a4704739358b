import Foundation

// MARK: - Encoding a file whole

extension Archive {
    /// Throws unless writing `records` encoded whole, in place of the file whose bytes are `stored`, keeps everything
    /// the stored records it keeps held: for files whose records cannot be found in their bytes (a UTF-8 byte order
    /// mark, a trailing comma, UTF-16 or UTF-32, JSON5), where no stored bytes can be kept.
    ///
    /// Each stored record the write keeps, changed or not, is compared with the encoding of the value read from it,
    /// as a rewrite that keeps stored bytes compares it (see ``UnknownKeys``): a key the encoding lacks, an array of
    /// another length or other values, or a scalar of another meaning is something the type did not read, which the
    /// write would lose. Formatting and JSON5 comments are not compared, and not kept.
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
        // The stored bytes as strict JSON, which they are unless the scanner cannot read them: then as the file's
        // decoder reads them, with none of its strategies, as it is JSON that is compared, not values.
        let storedJSON = JSONTree.parse(stored).map { (bytes: stored, tree: $0) }
            ?? StrictJSON.bytes(of: stored, allowingJSON5: decoder.allowsJSON5).flatMap { json in
                JSONTree.parse(json).map { (bytes: json, tree: $0) }
            }
        let storedRecords = isSingleValue ? storedJSON.map { [$0.tree] } : storedJSON?.tree.elements
        let knownBytes = try encode(array: kept.map(\.read))
        let known = JSONTree.parse(knownBytes)?.elements
        if let storedJSON, let storedRecords, storedRecords.count == storedCount, let known, known.count == kept.count {
            let keys = KeyReading(decoder)
            for (position, record) in kept.enumerated() {
                lost += UnknownKeys(
                    stored: storedRecords[record.original], known: known[position], storedBytes: storedJSON.bytes,
                    knownBytes: knownBytes, keys: keys
                ).keyPaths(record: record.original, encodedWhole: true)
            }
        } else {
            lost += kept.map { "[\($0.original)]" }
        }
        guard lost.isEmpty else { throw failure(.unknownKeysWouldBeLost(keyPaths: lost)) }
    }
}
