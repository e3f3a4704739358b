import Foundation

// MARK: - Migrated records

extension Archive {
    /// A migrated record's stored form in the current format: the encoding of the value migrated from `record`,
    /// with the keys `record` holds beyond the older type's encoding of what it read carried into it. A write
    /// compares this form, as it compares a current record's stored bytes, with the encoding of the value read, so
    /// that a value read through a migration and then converted again (a `DomainStore`'s domain value) loses
    /// nothing either.
    ///
    /// - Parameter position: The record's position in the file, for the error.
    /// - Returns: The form; when the older type is only `Decodable`, the current encoding alone.
    /// - Throws: ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` when no migration reads the record
    ///   any more or its keys have no place in the current format, and
    ///   ``PersistenceError/Reason/encodingFailed(detail:)``.
    func currentForm(ofMigrated record: Data, at position: Int) throws(PersistenceError) -> Data {
        let record = Data(record)
        for migration in evolution.migrations {
            guard let (value, encodeOld) = try? migration.decodeKeepingOld(record, decoder) else { continue }
            let current = try encode(value)
            guard let encodeOld else { return current }
            let old: Data
            do {
                old = try encodeOld(encoder)
            } catch {
                throw failure(.encodingFailed(detail: String(describing: error)))
            }
            // A record whose keys cannot be told apart cannot be shown to lose none.
            guard let storedRange = JSONScanner.valueRange(of: record),
                let storedTree = JSONNode.parse(record, at: storedRange),
                let oldRange = JSONScanner.valueRange(of: old), let oldTree = JSONNode.parse(old, at: oldRange)
            else { throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(position)]"])) }
            let unknown = UnknownKeys(stored: storedTree, known: oldTree, storedBytes: record, knownBytes: old)
            guard !unknown.isEmpty else { return current }
            guard let merged = unknown.carried(
                into: current, storedBytes: record, knownBytes: old,
                prettyPrinted: encoder.outputFormatting.contains(.prettyPrinted)
            ) else {
                throw failure(.unknownKeysWouldBeLost(keyPaths: unknown.keyPaths(record: position)))
            }
            return merged
        }
        throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(position)]"]))
    }
}
