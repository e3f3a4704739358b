#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One record of a file that no version of its type reads, with its bytes exactly as stored, as
/// ``Persistible/salvageFile()`` and ``Persistible/unreadableRecords()`` return it.
public struct UnreadableRecord: Sendable, Hashable {
    /// The record's position in the file's array; 0 for a file that holds a single value. Damaged bytes, up to the
    /// next whole record, count as one record at the position where the damage starts.
    public var index: Int

    /// Where decoding stopped, for example `[3].priority`; for damaged bytes, `[3]`.
    public var codingPath: String

    /// What the decoder said, for the current type and each older version, or where damaged bytes stop being JSON.
    public var message: String

    /// The record's JSON, byte for byte as the file holds it.
    public var bytes: Data

    /// Where ``bytes`` lie in the file, in bytes from its start: every byte is in a readable record, an unreadable
    /// one, or the whitespace and commas between them, so the ranges show what salvage left out.
    public var byteRange: Range<Int>

    /// Creates a description of an unreadable record, whose `byteRange` is by default `0..<bytes.count`, as if its
    /// bytes were a file of their own.
    public init(index: Int, codingPath: String, message: String, bytes: Data, byteRange: Range<Int>? = nil) {
        self.index = index
        self.codingPath = codingPath
        self.message = message
        self.bytes = bytes
        self.byteRange = byteRange ?? 0..<bytes.count
    }
}

/// What ``Persistible/salvageFile()`` could read from a file, record by record, and what it could not.
public struct SalvagedRecords<Value> {
    /// The records that decode, in stored order.
    public var values: [Value]

    /// The records that do not, in stored order.
    public var unreadable: [UnreadableRecord]

    /// Creates a salvage result.
    public init(values: [Value], unreadable: [UnreadableRecord]) {
        self.values = values
        self.unreadable = unreadable
    }
}

extension SalvagedRecords: Sendable where Value: Sendable {}

extension SalvagedRecords: Equatable where Value: Equatable {}

/// What each version of a type said about a record that none of them reads, as
/// ``PersistenceError/versionMismatch`` holds it.
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
