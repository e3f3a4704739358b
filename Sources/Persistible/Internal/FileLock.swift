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
/// While it holds the lock, a writer keeps its process identifier in the lock file and empties the file when it
/// lets go. A lock file that is not empty when the lock is taken therefore tells the next writer that a writer died
/// holding it, and may have left a temporary behind: only then is the directory searched for one.
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
        /// Whether a writer died holding the lock, or left temporaries it could not remove: set it to `false` once
        /// the directory has been cleaned.
        var cleanupIsOwed: Bool
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
        let found = Self.markLength(descriptor)
        var holding = Holding(cleanupIsOwed: found != 0)
        let own = Self.mark(descriptor, with: "\(getpid())\n", replacing: found)
        defer { Self.mark(descriptor, with: holding.cleanupIsOwed ? "cleanup\n" : "", replacing: own) }
        return try body(&holding)
    }

    // MARK: - Opening

    /// Opens the lock file, creating it with the mode that lets exactly those who may write the directory take it.
    ///
    /// Whoever may write the directory may replace the data file, so must be able to lock it: a writable shared
    /// directory is enough, whatever the creator's umask. Nobody else needs the lock, and nobody else gets it.
    private func open() throws -> Int32 {
        let flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        // Usually the lock file exists; a writer that makes it knows so by O_EXCL, and one that loses the race to
        // make it opens the winner's.
        var created = false
        var descriptor = retryingOnInterrupt { Foundation.open(path, flags) }
        if descriptor < 0, errno == ENOENT {
            descriptor = retryingOnInterrupt { Foundation.open(path, flags | O_CREAT | O_EXCL, 0o600) }
            created = descriptor >= 0
            if descriptor < 0, errno == EEXIST {
                descriptor = retryingOnInterrupt { Foundation.open(path, flags) }
            }
        }
        guard descriptor >= 0 else { throw SystemError.last("open lock file", .lock) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = SystemError.last("open lock file", .lock)
            close(descriptor)
            throw error
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw SystemError(phase: .lock, operation: "open lock file", code: EINVAL)
        }
        var directory = stat()
        guard stat(self.directory, &directory) == 0 else { return descriptor }
        // Failures below leave the lock file as it was, which is no worse.
        if created {
            // Root gives a lock file it makes to the directory's owner, as it keeps a data file's owner, so that a
            // root process saving in a user's directory does not lock the user out of it.
            _ = geteuid() == 0
                ? fchown(descriptor, directory.st_uid, directory.st_gid)
                : fchown(descriptor, uid_t.max, directory.st_gid)
        }
        // A lock file made before its directory was shared, or by an earlier version, is brought in line by its
        // owner.
        let mode = (directory.st_mode & 0o222) * 3
        if status.st_uid == geteuid() || geteuid() == 0, status.st_mode & 0o7777 != mode {
            _ = fchmod(descriptor, mode)
        }
        return descriptor
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

    // MARK: - The holder's mark

    /// The length of the lock file's contents: 0 when no writer died holding the lock; `nil` when it cannot be
    /// told, which counts as marked.
    private static func markLength(_ descriptor: Int32) -> Int? {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int(status.st_size) : nil
    }

    /// Writes `text` as the lock file's whole contents, which were `previousLength` bytes long (`nil`: unknown). A
    /// failure, on a full disk for example, is ignored: the mark only saves a later writer a search of the
    /// directory.
    ///
    /// The file is cut only when the old contents were longer than the new. Cutting it to the length it already
    /// has is no change, yet XFS then writes the new contents to the disk and waits for them, on every save.
    ///
    /// - Returns: The length of the contents now, or `nil` if it cannot be told.
    @discardableResult
    private static func mark(_ descriptor: Int32, with text: String, replacing previousLength: Int?) -> Int? {
        var bytes = Array(text.utf8)
        if !bytes.isEmpty {
            guard pwrite(descriptor, &bytes, bytes.count, 0) == bytes.count else { return nil }
        }
        if let previousLength, previousLength <= bytes.count { return bytes.count }
        return ftruncate(descriptor, off_t(bytes.count)) == 0 ? bytes.count : nil
    }
}

extension Duration {
    /// The duration in seconds, as `Thread.sleep` takes it.
    fileprivate var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }
}
