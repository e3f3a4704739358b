// MARK: - Remove

extension Persistible where Self: Codable & Hashable {
    /// Removes this value from the file: every stored value equal to it or, for an `Identifiable` type, every
    /// stored value with its `id`.
    ///
    /// The values are removed under the lock in one atomic write; the others keep their order, and a file reduced to
    /// nothing holds `[]`. A missing file is not an error: nothing is removed or written, and no directory is made.
    ///
    /// ```swift
    /// todo.done = true
    /// try todo.removeFromFile() // Removes the stored todo with this id, done or not.
    /// ```
    ///
    /// - Returns: Whether anything was removed.
    /// - Throws: ``PersistenceError``, for a reason it lists for any write.
    @discardableResult
    public func removeFromFile() throws -> Bool {
        let identity = RecordIdentity<Self>()
        let key = identity.of(self)
        return try Self.archive().remove { identity.of($0) == key } > 0
    }

    /// Removes every stored value for which `shouldRemove`, run under the lock, returns `true`, or none if it
    /// throws, as ``removeFromFile()`` removes.
    ///
    /// ```swift
    /// let removed = try Person.removeFromFile { $0.name == "Amy" }
    /// ```
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
