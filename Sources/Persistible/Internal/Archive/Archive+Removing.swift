import Foundation

// MARK: - Removing

extension Archive {
    /// Removes the values for which `shouldRemove` is true, under the lock, in one atomic write; returns how many.
    ///
    /// A file reduced to nothing holds an empty array. A missing file removes nothing and writes nothing; a missing
    /// directory is not created.
    func remove(where shouldRemove: (Value) throws -> Bool) throws -> Int {
        do {
            // Each record removed on its own, so the plan knows where every kept one came from.
            return try planWrite(creatingDirectory: false) { plan in
                plan.writesSingleValue = false
                return try plan.removeAll(where: shouldRemove)
            }
        } catch let error as PersistenceError where error.isMissingDirectory {
            // No directory, so no file.
            return 0
        }
    }
}
