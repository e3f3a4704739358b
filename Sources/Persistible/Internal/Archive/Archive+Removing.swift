import Foundation

// MARK: - Removing

extension Archive {
    /// Removes the values for which `shouldRemove` is true, under the lock, in one atomic write; returns how many.
    ///
    /// A file reduced to nothing holds an empty array. A missing file removes nothing and writes nothing; a missing
    /// directory is not created.
    func remove(where shouldRemove: (Value) throws -> Bool) throws -> Int {
        do {
            return try rewrite(creatingDirectory: false) { contents in
                guard let values = contents?.values else { return (nil, 0) }
                let kept = try values.filter { try !shouldRemove($0) }
                let removed = values.count - kept.count
                return (removed == 0 ? nil : .array(kept), removed)
            }
        } catch let error as PersistenceError where error.isMissingDirectory {
            // No directory, so no file.
            return 0
        }
    }
}
