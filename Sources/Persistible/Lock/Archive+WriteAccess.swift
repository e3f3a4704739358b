#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// How long a write waits for another writer's lock unless its type or store says otherwise: long enough for a queue
/// of writers each saving a large file to a slow disk, and for a polling waiter that writers looping on the lock
/// keep beating to it (the process tests' worst waits on a loaded machine ran into seconds), short enough that a
/// command-line user whose tool waits on a stuck holder is told which process it is rather than facing a silent
/// hang (see <doc:Guarantees#Locking>).
@usableFromInline let defaultLockTimeout = Duration.seconds(30)

extension Archive {
    /// Runs `body` holding the lock of the file at the end of the path's links, with that file, and creates the
    /// directory if needed. Anything but a regular file is refused before the lock, making no lock file, and under it.
    func withWriteAccess<Result>(
        creatingDirectory: Bool = true, deleting: Bool = false, _ body: (AtomicFile) throws -> Result
    ) throws -> Result {
        do {
            let file = try AtomicFile(resolving: path)
            guard file.name.utf8.count <= AtomicFile.nameLimit else {
                throw failure(.fileNameTooLong(name: file.name, limit: AtomicFile.nameLimit))
            }
            try refuseSpecial(file.kindWhenResolved, deleting: deleting)
            func locked() throws -> Result {
                try FileLock(protecting: file.path, in: file.directory).withLock(
                    timeout: lockTimeout, removeLeftoversOf010: file.removeTemporariesOfRelease010
                ) { directoryOwnership in
                    // One status serves the check and the cache: a regular file's is its identity.
                    let status = try FileSystem.entryStatus(file.path)
                    try refuseSpecial(status.map(AtomicFile.Kind.init), deleting: deleting)
                    var file = file
                    file.directoryOwnership = directoryOwnership
                    file.identityUnderLock = status.map(FileIdentity.init)
                    let result = try body(file)
                    if durability == .full, !file.changes.madeAny {
                        try file.flushAsFound()
                    }
                    return result
                }
            }
            do {
                return try locked()
            } catch let error as SystemError where error.phase == .lock && error.code == ENOENT && creatingDirectory {
                try Directory.create(atPath: file.directory, durability: durability)
                return try locked()
            }
        } catch {
            throw translate(error)
        }
    }

    /// Saves and loads refuse a special file as a failed read, as they always have; a delete as a refused delete.
    private func refuseSpecial(_ kind: AtomicFile.Kind?, deleting: Bool) throws {
        guard let kind, kind != .regular else { return }
        let code = kind == .directory ? EISDIR : EINVAL
        throw SystemError(phase: deleting ? .write : .read, operation: deleting ? "delete" : "open", code: code)
    }

    /// Removes the file under the lock, and a dead writer's temporary; a missing file is not an error. Only a regular
    /// file is removed, since a link can lead anywhere.
    func delete() throws {
        do {
            let resolved = try AtomicFile(resolving: path)
            guard resolved.kindWhenResolved != nil else {
                // No lock file is made beside wherever a link leads; but a delete retried after its directory
                // flush failed, perhaps in another process, must still make that removal durable.
                ArchiveCache.remove(path: path)
                if durability == .full, FileSystem.status(resolved.directory) != nil {
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

// MARK: - The file to write

/// The file a holder of its ``FileLock`` replaces all at once (the steps are in `Commit/`), which makes the one
/// temporary, `.<name>.persistible.tmp`, only ever the holder's.
struct AtomicFile {
    let path: String
    let directory: String
    let name: String
    /// What was at `path` when the links were resolved, or `nil` if nothing was.
    let kindWhenResolved: Kind?
    /// The ownership of `directory` as the lock read it, if it did.
    var directoryOwnership: FileOwnership?
    /// The file's identity once the lock was taken, `nil` if there was no file: right until the holder writes.
    var identityUnderLock: FileIdentity?
    /// Whether the holder replaced or removed the file, shared by its copies so that a write through any of them
    /// counts; one that did not flushes the file as it found it.
    let changes = Changes()

    final class Changes {
        var madeAny = false
    }

    /// The file to replace: the one at `path`, or the file a symbolic link there points to, however many links deep,
    /// where each link may be followed (see ``SymbolicLinks``).
    init(resolving path: String) throws {
        let resolved = try SymbolicLinks.resolve(path)
        (self.path, kindWhenResolved) = (resolved.path, resolved.status.map(Kind.init))
        (directory, name) = (Path.directory(of: self.path), Path.name(of: self.path))
    }

    /// The longest file name, in bytes, whose temporaries (42 bytes longer at most) and lock file (5 bytes longer)
    /// fit the file systems' limit of 255 bytes.
    static let nameLimit = 205

    /// What is at the path, as far as writing it goes: `special` is a FIFO, a device, a socket or a link, nothing a
    /// save may replace or a delete may remove.
    enum Kind {
        case regular, directory, special

        init(_ status: stat) {
            switch status.st_mode & S_IFMT {
            case S_IFREG: self = .regular
            case S_IFDIR: self = .directory
            default: self = .special
            }
        }
    }

    /// Removes the temporaries, `.<name>.persistible-<pid>-<random>.tmp`, that dead writers of version 0.1.0 left,
    /// holding the lock as well; only that exact pattern. Returns whether the directory was read and all removed.
    func removeTemporariesOfRelease010() -> Bool {
        let prefix = ".\(name).persistible-".utf8
        guard let names = FileSystem.names(inDirectory: directory) else { return false }
        var removedAll = true
        for entry in names where entry.utf8.starts(with: prefix) {
            let rest = Substring(entry.utf8.dropFirst(prefix.count))
            guard rest.wholeMatch(of: /[0-9]+-[0-9a-z]+\.tmp/) != nil else { continue }
            removedAll = (try? FileSystem.remove(directory + "/" + entry)) != nil && removedAll
        }
        return removedAll
    }
}
