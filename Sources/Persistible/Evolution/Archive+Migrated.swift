import Foundation

// MARK: - Migrated records

extension Archive {
    /// What the older type that read a migrated record knows of it: that type's encoding of the value it read from
    /// `record`, the record's stored bytes. The keys the record holds beyond it are keys no version here knows,
    /// which a write carries into the record's new encoding.
    ///
    /// The record is decoded again by the first migration that reads it, as the read did: only migrated records
    /// pay for it, and the state need not remember which migration read each one.
    ///
    /// - Parameter position: The record's position in the file, for the error.
    /// - Returns: `nil` when that older type is only `Decodable` and cannot say: the record is then written in the
    ///   current format alone.
    /// - Throws: ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` when no migration reads the record
    ///   any more, so that nothing shows which keys it would lose, and
    ///   ``PersistenceError/Reason/encodingFailed(detail:)`` when the older type does not encode what it read.
    func oldEncoding(ofMigrated record: Data, at position: Int) throws(PersistenceError) -> Data? {
        for migration in evolution.migrations {
            guard let (_, encodeOld) = try? migration.decodeKeepingOld(record, decoder) else { continue }
            guard let encodeOld else { return nil }
            do {
                return try encodeOld(encoder)
            } catch {
                throw failure(.encodingFailed(detail: String(describing: error)))
            }
        }
        throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(position)]"]))
    }
}
