import Foundation

/// What ``Persistible/salvageFile()`` could read from a file, record by record, and what it could not.
///
/// ```swift
/// let salvaged = try Task.salvageFile()
/// for record in salvaged.unreadable {
///     print("Record \(record.index) at \(record.codingPath): \(record.message)")
/// }
/// ```
public struct SalvagedRecords<Value> {
    /// The records that decode, after ``Persistible/archiveDefaults`` and ``Persistible/archiveMigrations``, in
    /// stored order.
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

/// One record of a file that no version of its type reads, with its bytes exactly as stored.
public struct UnreadableRecord: Sendable, Hashable {
    /// The record's position in the file's array; 0 for a file that holds a single value.
    ///
    /// When the file breaks off or stops being JSON, everything from there on is one record at the position where
    /// it broke.
    public var index: Int

    /// Where decoding stopped, for example `[3].priority`.
    public var codingPath: String

    /// What the decoder said, for the current type and each older version.
    public var message: String

    /// The record's JSON, byte for byte as the file holds it.
    public var bytes: Data

    /// Creates a description of an unreadable record.
    public init(index: Int, codingPath: String, message: String, bytes: Data) {
        self.index = index
        self.codingPath = codingPath
        self.message = message
        self.bytes = bytes
    }
}
