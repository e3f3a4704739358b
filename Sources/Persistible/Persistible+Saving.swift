// MARK: - Save

extension Persistible where Self: Codable & Hashable {
    /// Saves the value, unless the file holds it already; for an `Identifiable` type, replaces the stored value
    /// with the same `id` where it stands (see <doc:Guarantees#What-a-save-does> and
    /// <doc:SettingsAndEditing#Edit-records>).
    ///
    /// ```swift
    /// if !(try sam.saveToFile()) {
    ///     print("Samuel is already saved")
    /// }
    /// ```
    ///
    /// - Returns: Whether the file was written: `false` when it held this value already.
    /// - Throws: ``PersistenceError``, for a reason it lists for any write.
    @discardableResult
    public func saveToFile() throws -> Bool {
        try Self.archive().merge([self], asSingleValue: true) > 0
    }
}

extension Array where Element: Persistible & Codable & Hashable {
    /// Saves the values that the file does not hold yet, after the ones it does, each once, in the order given, as
    /// ``Persistible/saveToFile()`` saves one (see <doc:SettingsAndEditing#One-identity-stored-several-times>).
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
    /// Deletes the file under the lock saves take, so that the next save starts afresh; deleting a file that does
    /// not exist does nothing, and a link to it stays (see <doc:Guarantees#Symbolic-links-permissions-and-ownership>).
    ///
    /// - Throws: ``PersistenceError``, for a reason it lists for any write, or
    ///   ``PersistenceError/Reason/writeFailed(operation:errno:)`` with `"delete"` if the file cannot be removed.
    public static func deleteFile() throws {
        try archive(of: NoValues.self, caches: false, evolution: .none).delete()
    }
}

/// Lets every ``Persistible`` type, not only `Codable & Hashable` ones, delete its file, which needs no values.
private struct NoValues: Codable, Hashable {}
