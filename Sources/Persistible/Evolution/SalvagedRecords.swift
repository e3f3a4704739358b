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
    /// Where the file is damaged or cut short, the bytes up to the next record that is whole count as one record,
    /// at the position where the damage starts.
    public var index: Int

    /// Where decoding stopped, for example `[3].priority`; for damaged bytes, `[3]`.
    public var codingPath: String

    /// What the decoder said, for the current type and each older version; for damaged bytes, the line, column and
    /// byte where they stop being JSON and what was expected there.
    public var message: String

    /// The record's JSON, byte for byte as the file holds it.
    public var bytes: Data

    /// Where ``bytes`` lie in the file, in bytes from its start, the first being 0.
    ///
    /// Every byte of the file is in a readable record, in an unreadable one, or between them as whitespace and the
    /// commas that separate records, so the ranges show what salvage left out, and where to repair the file:
    ///
    /// ```swift
    /// for record in try Task.salvageFile().unreadable {
    ///     print("Bytes \(record.byteRange) of the file: \(record.message)")
    /// }
    /// ```
    public var byteRange: Range<Int>

    /// Creates a description of an unreadable record.
    ///
    /// - Parameters:
    ///   - index: The record's position in the file's array.
    ///   - codingPath: Where decoding stopped.
    ///   - message: What the decoder said.
    ///   - bytes: The record's bytes as the file holds them.
    ///   - byteRange: Where `bytes` lie in the file; by default, `0..<bytes.count`, as if they were a file of their
    ///     own.
    public init(index: Int, codingPath: String, message: String, bytes: Data, byteRange: Range<Int>? = nil) {
        self.index = index
        self.codingPath = codingPath
        self.message = message
        self.bytes = bytes
        self.byteRange = byteRange ?? 0..<bytes.count
    }
}
