import Foundation

/// How to read records that an earlier version of a type wrote: decode them as a frozen copy of that version, then
/// convert them.
///
/// Declare one for each earlier version in ``Persistible/archiveMigrations``, newest first. Each record of a file
/// is decoded as the current type first, then as each earlier version in the declared order, so a file that mixes
/// versions loads; a record that lacks a key of ``Persistible/archiveDefaults`` is decoded as each earlier version
/// before the defaults fill it. Loads migrate in memory and write nothing; the next write of the file stores every
/// record in the current format.
///
/// Make the frozen copy `Codable`, not only `Decodable`: a write can then tell which keys of a migrated record the
/// old type knows (its own encoding of the value it read) and carry the others, such as keys a newer version
/// added, into the record's new encoding, or throw rather than drop them.
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
/// A chain of versions reuses each step instead of repeating it: with `V2`'s own migration from `V1` declared
/// once, `V3` converts `V2` and composes that migration with ``then(_:)``:
///
/// ```swift
/// extension V2 {
///     static let fromV1 = ArchiveMigration<V2>.from(V1.self) { V2(v1: $0) }
/// }
///
/// extension V3 {
///     static var archiveMigrations: [ArchiveMigration<V3>] {
///         [.from(V2.self, V3.init(v2:)), V2.fromV1.then(V3.init(v2:))]
///     }
/// }
/// ```
///
/// **An `ArchiveMigration` can be used from any thread**: its conversion is a `@Sendable` closure.
public struct ArchiveMigration<Value>: Sendable {
    /// The name of the type the records are decoded as.
    public let sourceTypeName: String
    private let step: any MigrationStep<Value>

    private init(sourceTypeName: String, step: any MigrationStep<Value>) {
        self.sourceTypeName = sourceTypeName
        self.step = step
    }

    /// Decodes a record as the old type and converts it.
    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> Value {
        try step.decode(bytes, decoder).value
    }

    /// Decodes a record as the old type and converts it, and gives a way to encode the old value it read, which
    /// tells what the old type knows of the record; `nil` when the old type is only `Decodable`.
    func decodeKeepingOld(_ bytes: Data, _ decoder: JSONDecoder) throws -> (value: Value, encodeOld: OldEncoding?) {
        try step.decode(bytes, decoder)
    }

    /// A migration that decodes a record as `oldType` with the file's decoder, then converts it.
    ///
    /// An old type that is only `Decodable` cannot say which keys of a record it knows. The next write of a record
    /// it read probes the top-level keys the current format lacks: one without which the record still migrates to
    /// the same value is kept, others are dropped. A key a newer version added inside a nested object is dropped.
    /// Make the frozen copy `Codable` to keep such keys at every depth: the `Codable` overload of this method does.
    ///
    /// ```swift
    /// .from(TaskV1.Task.self) { old in Task(title: old.title, state: old.done ? .done : .open) }
    /// ```
    ///
    /// - Parameters:
    ///   - oldType: A frozen copy of the earlier version: a type that is never changed again, not the live one.
    ///   - convert: Makes the current value from the old one. If it throws, the record counts as one this
    ///     migration cannot read, and the error says so; nothing is written.
    /// - Returns: The migration, to list in ``Persistible/archiveMigrations``.
    public static func from<Old: Decodable>(
        _ oldType: Old.Type,
        _ convert: @escaping @Sendable (Old) throws -> Value
    ) -> ArchiveMigration<Value> {
        ArchiveMigration(sourceTypeName: String(reflecting: oldType), step: DecodeStep(convert: convert))
    }

    /// A migration that decodes a record as `oldType` with the file's decoder, then converts it, and that keeps
    /// the keys of the record the old type does not know.
    ///
    /// The keys a migrated record holds beyond the old type's encoding of the value read from it, at every depth
    /// (keys a newer version added to a record in the old format), are carried into the record's new encoding at
    /// the same paths when the file is next written. Keys the old type knows, such as a renamed field's old name,
    /// are dropped: the record is stored in the current format.
    ///
    /// ```swift
    /// enum TaskV1 { struct Task: Codable { var title: String; var done: Bool } }
    ///
    /// .from(TaskV1.Task.self) { old in Task(title: old.title, state: old.done ? .done : .open) }
    /// ```
    ///
    /// - Parameters:
    ///   - oldType: A frozen copy of the earlier version: a type that is never changed again, not the live one.
    ///   - convert: Makes the current value from the old one. If it throws, the record counts as one this
    ///     migration cannot read, and the error says so; nothing is written.
    /// - Returns: The migration, to list in ``Persistible/archiveMigrations``. A write of a record it read throws
    ///   ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` and writes nothing when a key the old type
    ///   does not know has no place in the record's new encoding.
    public static func from<Old: Codable>(
        _ oldType: Old.Type,
        _ convert: @escaping @Sendable (Old) throws -> Value
    ) -> ArchiveMigration<Value> {
        ArchiveMigration(sourceTypeName: String(reflecting: oldType), step: CodableStep(convert: convert))
    }

    /// This migration followed by a conversion of its result: how a chain of versions reuses each step.
    ///
    /// ```swift
    /// let fromV1ToV3 = V2.fromV1.then { v2 in V3(v2: v2) }
    /// ```
    ///
    /// - Parameter convert: Makes the next version's value from this migration's result.
    /// - Returns: A migration that reads the same records as this one and gives `Next` values; it keeps the keys
    ///   the old type does not know when this one does.
    public func then<Next>(_ convert: @escaping @Sendable (Value) throws -> Next) -> ArchiveMigration<Next> {
        ArchiveMigration<Next>(sourceTypeName: sourceTypeName, step: ThenStep(base: step, convert: convert))
    }
}

/// Encodes the old value a migration read, with the file's encoder: what the old type knows of the record.
typealias OldEncoding = (JSONEncoder) throws -> Data

// The steps are types rather than closures: a closure that decoded `Old` would capture its metatype, which is not
// known to be `Sendable`; a generic type's parameter is part of the type instead.

private protocol MigrationStep<Value>: Sendable {
    associatedtype Value
    /// The converted value, and a way to encode the old value when the old type can.
    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> (value: Value, encodeOld: OldEncoding?)
}

private struct DecodeStep<Old: Decodable, Value>: MigrationStep {
    let convert: @Sendable (Old) throws -> Value

    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> (value: Value, encodeOld: OldEncoding?) {
        (try convert(decoder.decode(Old.self, from: bytes)), nil)
    }
}

private struct CodableStep<Old: Codable, Value>: MigrationStep {
    let convert: @Sendable (Old) throws -> Value

    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> (value: Value, encodeOld: OldEncoding?) {
        let old = try decoder.decode(Old.self, from: bytes)
        return (try convert(old), { encoder in try encoder.encode(old) })
    }
}

private struct ThenStep<Previous, Value>: MigrationStep {
    let base: any MigrationStep<Previous>
    let convert: @Sendable (Previous) throws -> Value

    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> (value: Value, encodeOld: OldEncoding?) {
        let (previous, encodeOld) = try base.decode(bytes, decoder)
        return (try convert(previous), encodeOld)
    }
}
