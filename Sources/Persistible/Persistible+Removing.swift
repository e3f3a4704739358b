import Foundation

// MARK: - Remove

extension Persistible where Self: Codable & Hashable {
    /// Removes this value from the file: every stored value equal to it or, for an `Identifiable` type, every
    /// stored value with its `id`.
    ///
    /// The values are removed under the lock in one atomic write; the others keep their order. A file reduced to
    /// nothing holds an empty array, `[]`. A missing file is not an error: nothing is removed or written, and a
    /// missing directory is not created.
    ///
    /// ```swift
    /// todo.done = true
    /// try todo.removeFromFile() // Removes the stored todo with this id, done or not.
    /// ```
    ///
    /// - Returns: Whether anything was removed.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/unreadable(codingPath:detail:)`` if the file
    ///   exists but does not hold `Self` or `[Self]`, leaving it untouched;
    ///   ``PersistenceError/Reason/invalidFileName(_:)`` for a bad ``fileName``;
    ///   ``PersistenceError/Reason/encodingFailed(detail:)`` if the encoder refuses the values left; and
    ///   ``PersistenceError/Reason/readFailed(operation:errno:)``,
    ///   ``PersistenceError/Reason/writeFailed(operation:errno:)`` or
    ///   ``PersistenceError/Reason/lockFailed(operation:errno:)`` if the system refuses, with the file as it was.
    @discardableResult
    public func removeFromFile() throws -> Bool {
        let identity = RecordIdentity<Self>()
        let key = identity.of(self)
        return try Self.archive().remove { identity.of($0) == key } > 0
    }

    /// Removes every stored value for which `shouldRemove` returns `true`.
    ///
    /// The values are removed under the lock in one atomic write, or none is if `shouldRemove` throws; the others
    /// keep their order. A file reduced to nothing holds an empty array, `[]`. A missing file is not an error.
    ///
    /// ```swift
    /// let removed = try Person.removeFromFile { $0.name == "Amy" }
    /// ```
    ///
    /// `shouldRemove` runs while the lock is held: do not save, update or delete this type's file from it.
    ///
    /// - Parameter shouldRemove: Whether to remove a stored value.
    /// - Returns: How many values were removed.
    /// - Throws: ``PersistenceError``, in the same cases as ``removeFromFile()``, or what `shouldRemove` throws,
    ///   with the file as it was.
    @discardableResult
    public static func removeFromFile(where shouldRemove: (Self) throws -> Bool) throws -> Int {
        try archive().remove(where: shouldRemove)
    }
}
