import Foundation

/// How to read records that an earlier version of a type wrote: decode them as a frozen copy of that version, then
/// convert them.
///
/// List one for each earlier version in ``Persistible/archiveMigrations``; <doc:ModelEvolution> says in which order
/// they are tried and what a write keeps of a migrated record.
///
/// ```swift
/// enum TaskV1 { struct Task: Codable { var title: String; var done: Bool } }
///
/// extension Task {
///     static var archiveMigrations: [ArchiveMigration<Task>] {
///         [.from(TaskV1.Task.self) { old in Task(title: old.title, state: old.done ? .done : .open) }]
///     }
/// }
/// ```
///
/// **An `ArchiveMigration` can be used from any thread**: its conversion is a `@Sendable` closure.
public struct ArchiveMigration<Value>: Sendable {
    /// The name of the type the records are decoded as.
    public let sourceTypeName: String

    /// Decodes a record as the old type and converts it, with the old value when the old type is `Codable`: its
    /// encoding is what the old type knows of the record.
    let decodeKeepingOld: @Sendable (Data, JSONDecoder) throws -> (value: Value, old: (any Encodable)?)

    /// Decodes a record as the old type and converts it.
    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> Value {
        try decodeKeepingOld(bytes, decoder).value
    }

    /// A migration that decodes a record as `oldType` with the file's decoder, then converts it.
    ///
    /// When the file is next written, the record keeps the keys the old type does not know, at every depth, if
    /// `oldType` is `Codable`; one that is only `Decodable` cannot say which keys it knows, so fewer are kept (see
    /// <doc:ModelEvolution>).
    ///
    /// - Parameters:
    ///   - oldType: A frozen copy of the earlier version: a type that is never changed again, not the live one.
    ///   - convert: Makes the current value from the old one. If it throws, the record counts as one this
    ///     migration cannot read, and the error says what it threw.
    /// - Returns: The migration, to list in ``Persistible/archiveMigrations``. A write of a record it read throws
    ///   ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` where such a key has no place.
    public static func from<Old: Decodable>(
        _ oldType: Old.Type,
        _ convert: @escaping @Sendable (Old) throws -> Value
    ) -> ArchiveMigration<Value> {
        let step = Step(convert: convert, keepsOld: false)
        return ArchiveMigration(sourceTypeName: String(reflecting: oldType), decodeKeepingOld: step.decode)
    }

    /// A migration that decodes a record as the `Codable` `oldType`, then converts it; a write keeps the keys the old
    /// type does not know at every depth, as the `Decodable` form describes.
    ///
    /// Chosen over the `Decodable` form wherever the type is known to be `Codable`, including in generic code.
    public static func from<Old: Codable>(
        _ oldType: Old.Type,
        _ convert: @escaping @Sendable (Old) throws -> Value
    ) -> ArchiveMigration<Value> {
        let step = Step(convert: convert, keepsOld: true)
        return ArchiveMigration(sourceTypeName: String(reflecting: oldType), decodeKeepingOld: step.decode)
    }

    /// This migration followed by a conversion of its result: how a chain of versions declares each step once (see
    /// <doc:ModelEvolution>).
    ///
    /// - Parameter convert: Makes the next version's value from this migration's result.
    /// - Returns: A migration that reads the same records as this one and gives `Next` values; it keeps the keys
    ///   the old type does not know when this one does.
    public func then<Next>(_ convert: @escaping @Sendable (Value) throws -> Next) -> ArchiveMigration<Next> {
        ArchiveMigration<Next>(sourceTypeName: sourceTypeName) { [decodeKeepingOld] bytes, decoder in
            let (value, old) = try decodeKeepingOld(bytes, decoder)
            return (try convert(value), old)
        }
    }
}

/// A generic type rather than a closure: a closure that decoded `Old` would capture its metatype, which is not known
/// to be `Sendable`. The old value is kept only where `from` knew `Old` to be `Codable`, so that generic code that
/// knows a type only as `Decodable` gets the `Decodable` behaviour, as it always did.
private struct Step<Old: Decodable, Value>: Sendable {
    let convert: @Sendable (Old) throws -> Value
    let keepsOld: Bool

    @Sendable func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> (value: Value, old: (any Encodable)?) {
        let old = try decoder.decode(Old.self, from: bytes)
        return (try convert(old), keepsOld ? old as? any Encodable : nil)
    }
}

// MARK: - Migrated records

extension Archive {
    /// A migrated record's stored form in the current format, with the keys it holds beyond the old type's encoding
    /// of what it read: what a write compares with the encoding of the value read, as it does a record's bytes.
    /// `migrations` are the type's, read once by the write rather than once per record.
    ///
    /// - Throws: ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` when no migration reads the record
    ///   any more or its keys have no place in the current format, and
    ///   ``PersistenceError/Reason/encodingFailed(detail:)``.
    func currentForm(
        ofMigrated record: Data, at position: Int, by migrations: [ArchiveMigration<Value>]
    ) throws(PersistenceError) -> Data {
        let record = Data(record)
        for migration in migrations {
            guard let (value, old) = try? migration.decodeKeepingOld(record, decoder) else { continue }
            let current = try encode(value)
            guard let old else {
                return try probedForm(of: record, decodedBy: migration, into: current, value: value, at: position)
            }
            return try carrying(from: record, beyond: try encode(old), into: current, at: position)
        }
        throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(position)]"]))
    }

    /// `current` with the top-level keys of `record` that an old type which is only `Decodable` did not read: those
    /// the current encoding lacks and without which the record still migrates to `value`. One decode per such key,
    /// paid once by the write that stores the record anew; nested keys are not probed.
    private func probedForm(
        of record: Data, decodedBy migration: ArchiveMigration<Value>, into current: Data, value: Value,
        at position: Int
    ) throws(PersistenceError) -> Data {
        guard let object = JSONTree.parse(record), case .object(let members, _) = object,
            let currentObject = JSONTree.parse(current), case .object = currentObject
        else { return current }
        let unread = Set(members.map(\.key)).filter { key in
            currentObject.member(key) == nil
                && (try? migration.decode(object.object(in: record, without: [key]), decoder)) == value
        }
        guard !unread.isEmpty else { return current }
        return try carrying(
            from: record, beyond: object.object(in: record, without: unread), into: current, at: position
        )
    }
}
