import Foundation

// MARK: - Save

extension Persistible where Self: Codable & Hashable {
    /// Saves the value, unless the file holds it already.
    ///
    /// | The file holds   | Afterwards it holds                          |
    /// |------------------|----------------------------------------------|
    /// | nothing          | this value                                   |
    /// | this value       | the same; nothing is written                 |
    /// | another value    | an array of that value and this one          |
    /// | an array         | the array, with this value appended if new   |
    ///
    /// Values are compared with `==`. The save is atomic and locked: it reads the file, merges and writes the result
    /// while holding the file's lock, so saves from other threads and processes are never lost, and a crash at any
    /// moment leaves either the old file or the new one.
    ///
    /// ```swift
    /// try sam.saveToFile()
    /// try sam.saveToFile() // Writes nothing: Samuel is saved already.
    /// ```
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/unreadable(codingPath:detail:)`` if the file
    ///   exists but does not hold `Self` or `[Self]`, leaving it untouched;
    ///   ``PersistenceError/Reason/invalidFileName(_:)`` for a bad ``fileName``; and
    ///   ``PersistenceError/Reason/writeFailed(operation:errno:)`` or
    ///   ``PersistenceError/Reason/lockFailed(operation:errno:)`` if the system refuses, with the file as it was.
    public func saveToFile() throws {
        try Self.archive().merge([self], asSingleValue: true)
    }
}

extension Array where Element: Persistible & Codable & Hashable {
    /// Saves the values that the file does not hold yet, after the ones it does.
    ///
    /// Order is kept: values already in the file stay where they are, and new ones follow in the order given, each
    /// once. A file that does not exist receives the array without its duplicates. If no value is new, or the array
    /// is empty, nothing is written.
    ///
    /// ```swift
    /// try [sam, amy].saveToFile()
    /// try [amy, maame].saveToFile() // The file holds [sam, amy, maame].
    /// ```
    ///
    /// The save is atomic and locked, as ``Persistible/saveToFile()`` describes.
    ///
    /// - Throws: ``PersistenceError``, in the same cases as ``Persistible/saveToFile()``.
    public func saveToFile() throws {
        let archive = try Element.archive()
        guard !isEmpty else { return }
        try archive.merge(self, asSingleValue: false)
    }
}

// MARK: - Delete

extension Persistible {
    /// Deletes the file, so that the next save starts afresh.
    ///
    /// Deleting takes the same lock as saving, so it never removes a file in the middle of another process's save.
    /// A symbolic link at ``archiveUrl`` is kept, and the file it points to removed. Deleting a file that does not
    /// exist does nothing.
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/writeFailed(operation:errno:)`` if the file
    ///   exists and cannot be removed, or ``PersistenceError/Reason/invalidFileName(_:)`` for a bad ``fileName``.
    public static func deleteFile() throws {
        let archive = Archive<Tombstone>(
            url: try validatedArchiveUrl(),
            typeName: String(describing: self),
            encoder: archiveEncoder,
            decoder: archiveDecoder,
            durability: archiveDurability,
            caches: false
        )
        try archive.delete()
    }
}

/// Stands in for the stored type when deleting, which needs no values: `deleteFile()` is available to every
/// ``Persistible`` type, as it always was, not only to `Codable & Hashable` ones.
private struct Tombstone: Codable, Hashable {}
