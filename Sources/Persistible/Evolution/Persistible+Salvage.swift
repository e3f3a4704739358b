import Foundation

// MARK: - Salvage

extension Persistible where Self: Codable & Hashable {
    /// Reads the file record by record and returns what decodes and what does not; writes nothing.
    ///
    /// Each record is decoded as ``load()`` decodes it, after ``archiveDefaults`` and ``archiveMigrations``. A
    /// record that no version reads is returned in ``SalvagedRecords/unreadable`` with its position, where decoding
    /// stopped, what each version said, and its bytes exactly as stored. Where the file is damaged or cut short,
    /// reading resumes at the next whole record: the bytes up to it are one unreadable record, with their
    /// ``UnreadableRecord/byteRange`` and the line, column and byte where they stop being JSON. So one damaged
    /// record of N gives the other N − 1 values, and a file cut at any byte gives every record complete before the
    /// cut. A value is only ever decoded from bytes that form a whole record.
    ///
    /// Nothing happens to the file: to start afresh without losing a byte, call ``moveFileAside()`` and save the
    /// salvaged values.
    ///
    /// ```swift
    /// let salvaged = try Task.salvageFile()
    /// let aside = try Task.moveFileAside()
    /// try salvaged.values.saveToFile()
    /// print("Kept \(salvaged.values.count); the rest is in \(aside.path)")
    /// ```
    ///
    /// - Returns: The readable values, in stored order, and the unreadable records.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/fileNotFound`` if there is no file,
    ///   ``PersistenceError/Reason/readFailed(operation:errno:)`` if the system refuses to read it, and
    ///   ``PersistenceError/Reason/invalidFileName(_:)`` for a bad ``fileName``.
    public static func salvageFile() throws -> SalvagedRecords<Self> {
        try archive().salvage()
    }

    /// The records of the file that no version of the type reads, which loads skip and writes keep as they are,
    /// when the type returns `true` from ``archiveSkipsUnreadableRecords``.
    ///
    /// Each says where the record stands in the file's array, where decoding stopped, what the type and each of
    /// ``archiveMigrations`` said about it, and holds its bytes exactly as stored: enough for an app to tell its
    /// user that records written by a newer version are kept, and for a support request to show why. The file is
    /// read as it is now, from memory when it has not changed since the last operation; the records are decoded
    /// again only when there are some, so asking costs nothing when every record reads.
    ///
    /// ```swift
    /// let todos = try Todo.loadListFromFile()
    /// let kept = try Todo.unreadableRecords()
    /// if !kept.isEmpty {
    ///     banner = "\(kept.count) written by a newer version of the app, kept as they are"
    /// }
    /// ```
    ///
    /// - Returns: The records no version reads, in stored order; none when there is no file.
    /// - Throws: ``PersistenceError``, as ``loadFromFile()`` does, except that a missing file is no error. A type
    ///   that does not skip such records throws ``PersistenceError/Reason/unreadable(codingPath:detail:)`` for the
    ///   first of them, as its loads do.
    public static func unreadableRecords() throws -> [UnreadableRecord] {
        try archive().unreadableRecords()
    }

    /// Renames the file, under the lock, to a new name beside it that says why and when, and returns where it
    /// went.
    ///
    /// The new name is the file's with `.unreadable-<time>` (when the file does not decode, or cannot be read at
    /// all, being too large or not readable by this process; a rename needs only write access to the directory) or
    /// `.moved-aside-<time>` before `.json`, the time in UTC, for example
    /// `Task.unreadable-20261123T064002Z.json`. An existing file is never replaced: if the name is taken, `-2`,
    /// `-3` and so on are added. The rename holds the lock every save takes, so it never happens in the middle of
    /// another process's save, and with full durability the directory is flushed. The next save starts a new file.
    ///
    /// ```swift
    /// let aside = try Task.moveFileAside()
    /// try freshTasks.saveToFile()
    /// ```
    ///
    /// - Returns: The file's new location.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/fileNotFound`` if there is no file,
    ///   ``PersistenceError/Reason/writeFailed(operation:errno:)`` if it cannot be renamed (it then keeps its
    ///   name) or, with the operation `"fsync directory"`, if it was renamed but the directory could not be flushed
    ///   (the next write there flushes it), ``PersistenceError/Reason/lockFailed(operation:errno:)`` if the lock
    ///   cannot be taken, and ``PersistenceError/Reason/invalidFileName(_:)`` for a bad ``fileName``.
    @discardableResult
    public static func moveFileAside() throws -> URL {
        try archive().moveAside()
    }
}
