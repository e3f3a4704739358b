import Foundation

/// An exclusive lock that serializes the writers of one file, across threads and processes.
///
/// It locks a sibling file, `<name>.lock`, and never the data file: a save renames a new file over the data file,
/// so a lock held on the old data file would exclude nobody. The lock file is never deleted, since deleting it
/// while another writer waits on it would let a third writer lock a new file beside them.
///
/// It uses `flock`, which belongs to the open file description: each acquisition opens the lock file anew, so two
/// threads of one process exclude each other just as two processes do, and closing any other descriptor does not
/// drop the lock (both unlike `fcntl`'s `F_SETLK`). The lock is released when the process ends, however it ends.
///
/// A save writes nothing into the lock file: a file has one temporary, with a fixed name, and the next holder of the
/// lock replaces whatever a writer that died left there (see ``AtomicFile``). Earlier, unreleased builds kept their
/// process identifier in the lock file while they held it, and named their temporaries after it: a lock file that
/// is not empty when the lock is taken tells this writer that one of them died holding it, and only then is the
/// directory searched for what it left.
struct FileLock {
    /// The lock file.
    let path: String
    /// The directory that holds it and the file it protects.
    let directory: String

    /// The lock that protects the file at `dataPath`, in `directory`.
    init(protecting dataPath: String, in directory: String) {
        path = dataPath + ".lock"
        self.directory = directory
    }

    /// What the holder of the lock learns on taking it.
    struct Holding {
        /// Whether a writer of an earlier build died holding the lock, or temporaries were left that could not
        /// be removed: set it to `false` once the directory has been cleaned.
        var cleanupIsOwed: Bool
        /// The ownership of the directory that holds the lock file, as the lock read it, or `nil` if it could not.
        var directoryOwnership: FileOwnership?
    }

    /// The lock was held by another writer for longer than the caller would wait.
    struct Held: Error {
        /// The process that holds it, where the system can tell.
        var processID: Int32?
    }

    /// Runs `body` while holding the lock, waiting at most `timeout` for another writer to let go of it, or as
    /// long as it takes when `timeout` is `nil`.
    ///
    /// This blocks the calling thread: call it from a thread that may block, never from the cooperative pool.
    ///
    /// - Throws: ``SystemError`` if the lock file cannot be opened or locked; ``Held`` when the wait ran out.
    func withLock<Result>(timeout: Duration?, _ body: (inout Holding) throws -> Result) throws -> Result {
        let descriptor = try open()
        defer { close(descriptor) }
        try acquire(descriptor, timeout: timeout)
        // Read once the lock is held, so that the mark of a writer that died while this one waited is seen.
        let (found, directoryOwnership) = try inspect(descriptor)
        var holding = Holding(cleanupIsOwed: found != 0, directoryOwnership: directoryOwnership)
        // Nothing is written unless a mark was found: a write to the lock file costs the file system a
        // transaction, on every save.
        defer {
            if found != 0 {
                Self.mark(descriptor, with: holding.cleanupIsOwed ? "cleanup\n" : "", replacing: found)
            }
        }
        return try body(&holding)
    }

    // MARK: - Opening

    /// Opens the lock file, creating it if needed.
    ///
    /// Root gives a lock file it makes to the directory's owner, as it keeps a data file's owner, so that a root
    /// process saving in a user's directory does not lock the user out of it; ``inspect(_:)`` sets its mode.
    private func open() throws -> Int32 {
        let flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        // Usually the lock file exists; a writer that makes it knows so by O_EXCL, and one that loses the race to
        // make it opens the winner's.
        var descriptor = retryingOnInterrupt { Foundation.open(path, flags) }
        if descriptor < 0, errno == ENOENT {
            descriptor = retryingOnInterrupt { Foundation.open(path, flags | O_CREAT | O_EXCL, 0o600) }
            if descriptor >= 0 {
                // A failure leaves the lock file as it was made, which is no worse.
                if let directory = FileOwnership.of(path: self.directory) {
                    _ = geteuid() == 0
                        ? fchown(descriptor, directory.owner, directory.group)
                        : fchown(descriptor, uid_t.max, directory.group)
                }
            } else if errno == EEXIST {
                descriptor = retryingOnInterrupt { Foundation.open(path, flags) }
            }
        }
        guard descriptor >= 0 else { throw SystemError.last("open lock file", .lock) }
        return descriptor
    }

    /// Checks the locked file and gives it the mode that lets exactly those who may write the directory take it.
    ///
    /// Whoever may write the directory may replace the data file, so must be able to lock it: a writable shared
    /// directory is enough, whatever the creator's umask. Nobody else needs the lock, and nobody else gets it.
    ///
    /// - Returns: The length of the lock file's contents, 0 unless a writer of an earlier build died holding the
    ///   lock; and the directory's ownership, if it could be read.
    /// - Throws: ``SystemError`` if the lock file cannot be read or is not a regular file.
    private func inspect(_ descriptor: Int32) throws -> (markLength: Int, directory: FileOwnership?) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SystemError.last("open lock file", .lock) }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw SystemError(phase: .lock, operation: "open lock file", code: EINVAL)
        }
        // Read without its times: the save changes the directory next (see FileOwnership).
        guard let directory = FileOwnership.of(path: self.directory) else { return (Int(status.st_size), nil) }
        // A lock file made before its directory was shared, or by an earlier version, is brought in line by its
        // owner; a failure leaves it as it was, which is no worse.
        let mode = (directory.mode & 0o222) * 3
        if status.st_mode & 0o7777 != mode, status.st_uid == geteuid() || geteuid() == 0 {
            _ = fchmod(descriptor, mode)
        }
        return (Int(status.st_size), directory)
    }

    private func acquire(_ descriptor: Int32, timeout: Duration?) throws {
        guard let timeout else {
            guard retryingOnInterrupt({ flock(descriptor, LOCK_EX) }) == 0 else { throw SystemError.last("flock", .lock) }
            return
        }
        // flock cannot wait for a while and then give up, so the wait is a poll, at first often, so that a short
        // hold costs a short wait, then at most every 50 ms.
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if retryingOnInterrupt({ flock(descriptor, LOCK_EX | LOCK_NB) }) == 0 { return }
            guard errno == EWOULDBLOCK else { throw SystemError.last("flock", .lock) }
            let remaining = deadline - clock.now
            guard remaining > .zero else {
                throw Held(processID: LockHolder.processID(holding: descriptor))
            }
            Thread.sleep(forTimeInterval: min(pause, remaining).seconds)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    // MARK: - The mark of earlier builds

    /// Writes `text` as the lock file's whole contents, which were `previousLength` bytes long: empty once the
    /// directory is clean, `"cleanup\n"` while temporaries are left that could not be removed. A failure, on a
    /// full disk for example, is ignored: the mark only saves a later writer a search of the directory.
    private static func mark(_ descriptor: Int32, with text: String, replacing previousLength: Int) {
        var bytes = Array(text.utf8)
        if !bytes.isEmpty {
            guard pwrite(descriptor, &bytes, bytes.count, 0) == bytes.count else { return }
        }
        // Cutting the file to the length it already has is no change, yet XFS then writes it to the disk.
        if previousLength > bytes.count {
            _ = ftruncate(descriptor, off_t(bytes.count))
        }
    }
}

extension Duration {
    /// The duration in seconds, as `Thread.sleep` takes it.
    fileprivate var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }
}
