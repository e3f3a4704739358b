import Foundation

/// What each version of a type said about a record that none of them reads: how a file written by another version
/// of the model differs from a damaged one.
///
/// A ``PersistenceError`` with ``PersistenceError/Reason/unreadable(codingPath:detail:)`` carries one in
/// ``PersistenceError/versionMismatch`` when the file is valid JSON that does not match the type, and none when the
/// file is not valid JSON at all (truncated, damaged, empty):
///
/// ```swift
/// catch let error as PersistenceError {
///     if let mismatch = error.versionMismatch {
///         print("Record \(mismatch.record ?? 0): \(mismatch.attempts.map(\.detail))")
///     }
/// }
/// ```
public struct VersionMismatch: Sendable, Hashable {
    /// The record's position in the file's array, or `nil` when the file holds a single value.
    public var record: Int?

    /// What decoding the record said: first as the current type, then as each type in
    /// ``Persistible/archiveMigrations``, in the declared order.
    public var attempts: [Attempt]

    /// Creates a description of a mismatch.
    public init(record: Int?, attempts: [Attempt]) {
        self.record = record
        self.attempts = attempts
    }

    /// What decoding one record as one type said.
    public struct Attempt: Sendable, Hashable {
        /// The type the record was decoded as.
        public var typeName: String
        /// Where in the file decoding stopped, for example `[3].priority`.
        public var codingPath: String
        /// The decoder's message, or the error a migration's conversion threw.
        public var detail: String

        /// Creates a description of one attempt.
        public init(typeName: String, codingPath: String, detail: String) {
            self.typeName = typeName
            self.codingPath = codingPath
            self.detail = detail
        }
    }
}
