// MARK: - Remove

extension Persistible where Self: Codable & Hashable {
    /// Removes this value from the file: every stored value equal to it or, for an `Identifiable` type, every
    /// stored value with its `id`, whatever its other properties hold (see <doc:SettingsAndEditing#Remove-records>).
    ///
    /// - Returns: Whether anything was removed.
    /// - Throws: ``PersistenceError``, for a reason it lists for any write.
    @discardableResult
    public func removeFromFile() throws -> Bool {
        try Self.archive().remove(self) > 0
    }

    /// Removes every stored value for which `shouldRemove`, run under the lock, returns `true`, or none if it
    /// throws, as ``removeFromFile()`` removes.
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
