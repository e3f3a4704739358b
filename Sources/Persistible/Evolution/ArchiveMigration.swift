import Foundation

/// How to read records that an earlier version of a type wrote: decode them as a frozen copy of that version, then
/// convert them.
///
/// Declare one for each earlier version in ``Persistible/archiveMigrations``, newest first. Each record of a file
/// is decoded as the current type first, then as each earlier version in the declared order, so a file that mixes
/// versions loads. Loads migrate in memory and write nothing; the next write of the file stores every record in
/// the current format.
///
/// ```swift
/// enum TaskV1 { struct Task: Decodable { var title: String; var done: Bool } }
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
/// static let fromV1 = ArchiveMigration<V2>.from(V1.self) { V2(v1: $0) }
/// static var archiveMigrations: [ArchiveMigration<V3>] {
///     [.from(V2.self, V3.init(v2:)), fromV1.then(V3.init(v2:))]
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
        try step.decode(bytes, decoder)
    }

    /// A migration that decodes a record as `oldType` with the file's decoder, then converts it.
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

    /// This migration followed by a conversion of its result: how a chain of versions reuses each step.
    ///
    /// ```swift
    /// let fromV1ToV3 = V2.fromV1.then { v2 in V3(v2: v2) }
    /// ```
    ///
    /// - Parameter convert: Makes the next version's value from this migration's result.
    /// - Returns: A migration that reads the same records as this one and gives `Next` values.
    public func then<Next>(_ convert: @escaping @Sendable (Value) throws -> Next) -> ArchiveMigration<Next> {
        ArchiveMigration<Next>(sourceTypeName: sourceTypeName, step: ThenStep(base: step, convert: convert))
    }
}

// The steps are types rather than closures: a closure that decoded `Old` would capture its metatype, which is not
// known to be `Sendable`; a generic type's parameter is part of the type instead.

private protocol MigrationStep<Value>: Sendable {
    associatedtype Value
    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> Value
}

private struct DecodeStep<Old: Decodable, Value>: MigrationStep {
    let convert: @Sendable (Old) throws -> Value

    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> Value {
        try convert(decoder.decode(Old.self, from: bytes))
    }
}

private struct ThenStep<Previous, Value>: MigrationStep {
    let base: any MigrationStep<Previous>
    let convert: @Sendable (Previous) throws -> Value

    func decode(_ bytes: Data, _ decoder: JSONDecoder) throws -> Value {
        try convert(base.decode(bytes, decoder))
    }
}
