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
    /// - Returns: The form. When the older type is only `Decodable`, it cannot say what it knows: the form then
    ///   carries the top-level keys that the older type did not read (see `probedForm(of:decodedBy:into:value:at:)`).
    /// - Throws: ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` when no migration reads the record
    ///   any more or its keys have no place in the current format, and
    ///   ``PersistenceError/Reason/encodingFailed(detail:)``.
    func currentForm(ofMigrated record: Data, at position: Int) throws(PersistenceError) -> Data {
        let record = Data(record)
        for migration in evolution.migrations {
            guard let (value, encodeOld) = try? migration.decodeKeepingOld(record, decoder) else { continue }
            let current = try encode(value)
            guard let encodeOld else {
                return try probedForm(of: record, decodedBy: migration, into: current, value: value, at: position)
            }
            let old: Data
            do {
                old = try encodeOld(encoder)
            } catch {
                throw failure(.encodingFailed(detail: String(describing: error)))
            }
            return try carrying(from: record, beyond: old, into: current, at: position)
        }
        throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(position)]"]))
    }

    /// `current` with the top-level keys of `record` that an older type which is only `Decodable` did not read: keys
    /// the current encoding lacks, without which the record still migrates to `value`. A key whose removal makes the
    /// record unreadable or changes what it migrates to is the older type's, and is dropped, as the migration means.
    ///
    /// Each such key costs one more decode of the record, paid once, by the write that stores it in the current
    /// format. Keys inside nested objects are not probed.
    ///
    /// - Throws: ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` when a key to keep has no place.
    private func probedForm(
        of record: Data, decodedBy migration: ArchiveMigration<Value>, into current: Data, value: Value,
        at position: Int
    ) throws(PersistenceError) -> Data {
        guard let object = JSONTree.parse(record), case .object(let members, _) = object,
            let currentObject = JSONTree.parse(current), case .object = currentObject
        else { return current }
        var unread = Set<String>()
        for key in Set(members.map(\.key)) where currentObject.member(key) == nil {
            guard let probed = try? migration.decodeKeepingOld(object.object(in: record, without: [key]), decoder)
            else { continue }
            if probed.value == value { unread.insert(key) }
        }
        guard !unread.isEmpty else { return current }
        return try carrying(
            from: record, beyond: object.object(in: record, without: unread), into: current, at: position
        )
    }
}
