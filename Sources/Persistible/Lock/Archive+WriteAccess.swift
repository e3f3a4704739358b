import Foundation

// MARK: - Write access

extension Archive {
    /// Runs `body` holding the file's lock, with the file to write; creates the directory if needed.
    ///
    /// Symbolic links are resolved first, so that every link to the file shares the lock beside the real file.
    /// A directory, FIFO, device or socket there is refused before the lock is taken, so that no lock file is made
    /// beside it, and again under the lock.
    func withWriteAccess<Result>(
        creatingDirectory: Bool = true,
        deleting: Bool = false,
        _ body: (AtomicFile) throws -> Result
    ) throws -> Result {
        do {
            let file = try AtomicFile(resolving: path)
            guard file.name.utf8.count <= AtomicFile.nameLimit else {
                throw failure(.fileNameTooLong(name: file.name, limit: AtomicFile.nameLimit))
            }
            try refuseSpecial(file.kindWhenResolved, deleting: deleting)
            let lock = FileLock(protecting: file.path, in: file.directory)
            var attempt = 0
            while true {
                attempt += 1
                do {
                    return try lock.withLock(
                        timeout: lockTimeout, removeLeftoversOf010: file.removeTemporariesOfRelease010
                    ) { directoryOwnership in
                        // One status serves the check and the cache: a regular file's is its identity.
                        let status = try file.status()
                        try refuseSpecial(status.map(AtomicFile.Kind.init), deleting: deleting)
                        var file = file
                        file.directoryOwnership = directoryOwnership
                        file.identityUnderLock = status.map(FileIdentity.init)
                        let result = try body(file)
                        if durability == .full, !file.hasChanged {
                            try file.flushAsFound()
                        }
                        return result
                    }
                } catch let error as SystemError
                    where error.phase == .lock && error.code == ENOENT && creatingDirectory && attempt == 1
                {
                    try Directory.create(atPath: file.directory, durability: durability)
                }
            }
        } catch {
            throw translate(error)
        }
    }

    /// Saves and loads refuse a special file as a failed read, as they always have; a delete as a refused delete.
    private func refuseSpecial(_ kind: AtomicFile.Kind?, deleting: Bool) throws {
        guard let kind, kind != .regular else { return }
        let code = kind == .directory ? EISDIR : EINVAL
        throw deleting
            ? SystemError(phase: .write, operation: "delete", code: code)
            : SystemError(phase: .read, operation: "open", code: code)
    }

    /// Removes the file under the lock, and the temporary a writer left when it died; a missing file is not an
    /// error. Only a regular file is removed, since a link can lead anywhere.
    func delete() throws {
        do {
            let resolved = try AtomicFile(resolving: path)
            guard resolved.kindWhenResolved != nil else {
                // No lock file is made beside wherever a link leads; but a delete retried after its directory
                // flush failed, perhaps in another process, must still make that removal durable.
                ArchiveCache.remove(path: path)
                if durability == .full, Directory.exists(atPath: resolved.directory) {
                    try Directory.flushAfterChange(atPath: resolved.directory)
                }
                return
            }
            try withWriteAccess(creatingDirectory: false, deleting: true) { file in
                ArchiveCache.remove(path: path)
                try file.remove(durability: durability)
                file.removeAbandonedTemporary()
            }
        } catch let error as PersistenceError where error.isMissingDirectory {
            // No directory, so no file.
        } catch {
            throw translate(error)
        }
    }
}

extension PersistenceError {
    /// Whether a write that does not create the file's directory found none: its lock file could not be made.
    var isMissingDirectory: Bool {
        reason == .lockFailed(operation: "open lock file", errno: ENOENT)
    }
}
