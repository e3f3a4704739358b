import Foundation

// MARK: - Save

extension Persistible where Self: Codable & Hashable {
    /// Saves the value, unless the file holds it already; for an `Identifiable` type, replaces the stored value
    /// with the same `id`.
    ///
    /// | The file holds                          | Afterwards it holds                                          |
    /// |-----------------------------------------|--------------------------------------------------------------|
    /// | nothing                                 | this value                                                   |
    /// | this value                              | the same; nothing is written                                 |
    /// | another value                           | an array of that value and this one                          |
    /// | an array                                | the array, with this value appended if new                   |
    /// | a value with this `id` (`Identifiable`) | this value, single or where the old one stood in the array   |
    ///
    /// Values of a type that is not `Identifiable` are compared with `==`, the article's rule. Values of an
    /// `Identifiable` type are the same record when their `id`s are equal: saving an edited value replaces the
    /// stored one where it stands, so a single-value file stays a single value and the file never holds two
    /// versions of one record. If the file holds several values with this `id` (written by other means), the
    /// first is replaced and the later ones removed.
    ///
    /// The save is atomic and locked: it reads the file, merges and writes the result while holding the file's
    /// lock, so saves from other threads and processes are never lost, and a crash at any moment leaves either the
    /// old file or the new one.
    ///
    /// ```swift
    /// try sam.saveToFile()
    /// if !(try sam.saveToFile()) {
    ///     print("Samuel is already saved")
    /// }
    /// ```
    ///
    /// - Returns: Whether the file was written: `false` when it held this value already.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/unreadable(codingPath:detail:)`` if the file
    ///   exists but does not hold `Self` or `[Self]`, leaving it untouched;
    ///   ``PersistenceError/Reason/invalidFileName(_:)`` or ``PersistenceError/Reason/fileNameTooLong(name:limit:)``
    ///   for a bad ``fileName``; ``PersistenceError/Reason/encodingFailed(detail:)`` if the encoder refuses the
    ///   value; ``PersistenceError/Reason/readFailed(operation:errno:)`` for a directory, FIFO, device or socket in
    ///   the file's place; ``PersistenceError/Reason/fileTooLarge(size:limit:)`` for a file over 1 GiB;
    ///   ``PersistenceError/Reason/lockHeld(processID:)`` when another writer holds the lock for longer than
    ///   ``archiveLockTimeout``; and ``PersistenceError/Reason/writeFailed(operation:errno:)``,
    ///   ``PersistenceError/Reason/readFailed(operation:errno:)`` or
    ///   ``PersistenceError/Reason/lockFailed(operation:errno:)`` if the system refuses, with the file as it was
    ///   (except for the operation `"fsync directory"`: the new contents are then in place, and a retry, in any
    ///   process, flushes).
    @discardableResult
    public func saveToFile() throws -> Bool {
        try Self.archive().merge([self], asSingleValue: true) > 0
    }
}

extension Array where Element: Persistible & Codable & Hashable {
    /// Saves the values that the file does not hold yet, after the ones it does; for an `Identifiable` type,
    /// replaces the stored values with the same `id`s.
    ///
    /// Order is kept: values already in the file stay where they are, and new ones follow in the order given, each
    /// once. A file that does not exist receives the array without its duplicates. If no value is new, or the array
    /// is empty, nothing is written.
    ///
    /// For an `Identifiable` type the values are saved one after the other, as ``Persistible/saveToFile()``
    /// saves one: a value whose `id` is stored replaces it where it stands, a new `id` is appended, and of two
    /// values with one `id` in the array the later one is what the file keeps.
    ///
    /// ```swift
    /// try [sam, amy].saveToFile()
    /// let added = try [amy, maame].saveToFile() // 1: the file holds [sam, amy, maame].
    /// ```
    ///
    /// The save is atomic and locked, as ``Persistible/saveToFile()`` describes.
    ///
    /// - Returns: How many values were added or replaced: 0 when nothing was written.
    /// - Throws: ``PersistenceError``, in the same cases as ``Persistible/saveToFile()``.
    @discardableResult
    public func saveToFile() throws -> Int {
        let archive = try Element.archive()
        guard !isEmpty else { return 0 }
        return try archive.merge(self, asSingleValue: false)
    }
}

// MARK: - Delete

extension Persistible {
    /// Deletes the file, so that the next save starts afresh.
    ///
    /// Deleting takes the same lock as saving, so it never removes a file in the middle of another process's save.
    /// A symbolic link at ``archiveUrl`` is kept, and the file it points to removed, if it is a regular file: a link
    /// can lead anywhere, so a directory, FIFO, device or socket at its end is refused. Deleting a file that does not
    /// exist does nothing.
    ///
    /// ```swift
    /// try Person.deleteFile()
    /// ```
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/writeFailed(operation:errno:)`` if the file
    ///   exists and cannot be removed, with the operation `"delete"` and `EISDIR` or `EINVAL` if it is not a regular
    ///   file; ``PersistenceError/Reason/lockHeld(processID:)`` when another writer holds the lock for longer than
    ///   ``archiveLockTimeout``; or ``PersistenceError/Reason/invalidFileName(_:)`` or
    ///   ``PersistenceError/Reason/fileNameTooLong(name:limit:)`` for a bad ``fileName``.
    public static func deleteFile() throws {
        let archive = Archive<NoValues>(
            url: try validatedArchiveUrl(),
            namedAfter: self,
            encoder: archiveEncoder,
            decoder: archiveDecoder,
            durability: archiveDurability,
            lockTimeout: archiveLockTimeout,
            caches: false
        )
        try archive.delete()
    }
}

/// Stands in for the stored type when deleting, which needs no values: `deleteFile()` is available to every
/// ``Persistible`` type, as it always was, not only to `Codable & Hashable` ones.
private struct NoValues: Codable, Hashable {}
