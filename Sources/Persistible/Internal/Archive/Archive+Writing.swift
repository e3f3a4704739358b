import Foundation

// MARK: - Writing

extension Archive {
    /// Runs `body` holding the file's lock, with the file to write; creates the directory if needed.
    ///
    /// The file's symbolic links are resolved first, so the lock sits beside the real file and every link to it
    /// shares that lock.
    func withWriteAccess<Result>(
        creatingDirectory: Bool = true,
        _ body: (AtomicFile) throws -> Result
    ) throws -> Result {
        do {
            let file = try AtomicFile(resolving: url.path)
            let lock = FileLock(protecting: file.path)
            do {
                return try lock.withLock {
                    file.removeAbandonedTemporaries()
                    return try body(file)
                }
            } catch let error as SystemError where error.phase == .lock && error.code == ENOENT && creatingDirectory {
                try Directory.create(atPath: (file.path as NSString).deletingLastPathComponent, durability: durability)
                return try lock.withLock { try body(file) }
            }
        } catch {
            throw translate(error)
        }
    }

    /// Removes the file under the lock; a missing file is not an error.
    func delete() throws {
        do {
            try withWriteAccess(creatingDirectory: false) { file in
                ArchiveCache.remove(path: url.path)
                try file.remove(durability: durability)
            }
        } catch let error as PersistenceError where error.reason == .lockFailed(operation: "open lock file", errno: ENOENT) {
            // No directory, so no file.
        }
    }
}
