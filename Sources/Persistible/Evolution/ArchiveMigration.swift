#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How to read records that an earlier version of a type wrote: decode them as a frozen copy of that version, then
/// convert them (see <doc:ModelEvolution#A-field-renamed-or-its-type-changed>).
///
/// **An `ArchiveMigration` can be used from any thread**: its conversion is a `@Sendable` closure.
public struct ArchiveMigration<Value>: Sendable {
    /// The name of the type the records are decoded as.
    public let sourceTypeName: String

    /// The old value, kept when its type is `Codable`, tells by its encoding what the old type knows of the record.
    let decodeKeepingOld: @Sendable (Data, JSONDecoder) throws -> (value: Value, old: (any Encodable)?)

    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> Value {
        try decodeKeepingOld(bytes, decoder).value
    }

    /// A migration that decodes a record as `oldType` with the file's decoder, then converts it; see
    /// <doc:ModelEvolution#A-field-renamed-or-its-type-changed> for the keys a write keeps.
    ///
    /// - Parameters:
    ///   - oldType: A frozen copy of the earlier version: a type that is never changed again, not the live one.
    ///   - convert: Makes the current value from the old one. If it throws, the record counts as one this
    ///     migration cannot read, and the error says what it threw.
    /// - Returns: The migration, to list in ``Persistible/archiveMigrations``.
    public static func from<Old: Decodable>(
        _ oldType: Old.Type, _ convert: @escaping @Sendable (Old) throws -> Value
    ) -> ArchiveMigration<Value> {
        Step(convert: convert, keepsOld: false).migration
    }

    /// The `Decodable` form, chosen over it wherever `oldType` is known to be `Codable`, in generic code too.
    public static func from<Old: Codable>(
        _ oldType: Old.Type, _ convert: @escaping @Sendable (Old) throws -> Value
    ) -> ArchiveMigration<Value> {
        Step(convert: convert, keepsOld: true).migration
    }

    /// This migration followed by a conversion of its result, keeping the keys this migration keeps: how a chain of
    /// versions declares each step once (see <doc:ModelEvolution#A-field-renamed-or-its-type-changed>).
    ///
    /// - Parameter convert: Makes the next version's value from this migration's result.
    /// - Returns: A migration that reads the same records as this one and gives `Next` values.
    public func then<Next>(_ convert: @escaping @Sendable (Value) throws -> Next) -> ArchiveMigration<Next> {
        ArchiveMigration<Next>(sourceTypeName: sourceTypeName) { [decodeKeepingOld] bytes, decoder in
            let (value, old) = try decodeKeepingOld(bytes, decoder)
            return (try convert(value), old)
        }
    }
}

/// A type rather than a closure, which would capture `Old`'s metatype, not known to be `Sendable`. The old value is
/// kept only where `from` knew `Old` to be `Codable`: generic code that knows it as `Decodable` keeps what it did.
private struct Step<Old: Decodable, Value>: Sendable {
    let convert: @Sendable (Old) throws -> Value
    let keepsOld: Bool

    var migration: ArchiveMigration<Value> {
        ArchiveMigration(sourceTypeName: String(reflecting: Old.self), decodeKeepingOld: decode)
    }

    @Sendable func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> (value: Value, old: (any Encodable)?) {
        let old = try decoder.decodeDirectly(Old.self, from: bytes)
        return (try convert(old), keepsOld ? old as? any Encodable : nil)
    }
}

// MARK: - Migrated records

extension Archive {
    /// A migrated record in the current format, keeping the keys its old type did not read, for a write to compare
    /// with the value's encoding; throws `unknownKeysWouldBeLost` if no migration reads it or a key has no place.
    func currentForm(
        ofMigrated record: Data, at position: Int, by migrations: [ArchiveMigration<Value>]
    ) throws(PersistenceError) -> Data {
        let record = Data(record)
        for migration in migrations {
            guard let (value, old) = try? migration.decodeKeepingOld(record, decoder) else { continue }
            let current = try encode(value)
            if let old {
                return try carrying(from: record, beyond: try encode(old), into: current, at: position)
            }
            // A `Decodable`-only old type did not read a top-level key that `current` lacks and without which the
            // record still migrates to `value`. One decode per key; nested keys are not probed.
            guard let object = JSONValue.parse(record), let members = object.members,
                let currentObject = JSONValue.parse(current), currentObject.members != nil
            else { return current }
            let unread = Set(members.map(\.key)).filter { key in
                currentObject.member(key) == nil
                    && (try? migration.decode(object.object(without: [key]), decoder)) == value
            }
            guard !unread.isEmpty else { return current }
            let known = object.object(without: unread)
            return try carrying(from: record, beyond: known, into: current, at: position)
        }
        throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(position)]"]))
    }
}
