import Foundation

/// An exclusive lock that serializes the writers of one file, across threads and processes.
///
/// It locks a sibling file, `<name>.lock`, and never the data file: a save renames a new file over the data file,
/// so a lock held on the old data file would exclude nobody. The lock file is never deleted, since deleting it
/// while another writer waits on it would let a third writer lock a new file beside them.
///
/// The lock file's length is 0 when version 0.1.0, whose writers could die and leave temporaries, may have used it,
/// and 1 once a holder has removed them or when this version made it: set once, so no later save reads the directory.
///
/// `flock` belongs to the open file description, and each acquisition opens the lock file anew: two threads of one
/// process exclude each other as two processes do, and closing another descriptor does not drop the lock (both
/// unlike `fcntl`'s `F_SETLK`). The lock is released when the process ends, however it ends.
struct FileLock {
    let path: String
    /// The directory that holds the lock file and the file it protects.
    let directory: String

    init(protecting dataPath: String, in directory: String) {
        path = dataPath + ".lock"
        self.directory = directory
    }

    /// The lock was held by another writer, `processID` where the system can tell, longer than the caller would wait.
    struct Held: Error {
        var processID: Int32?
    }

    /// Runs `body` while holding the lock, waiting at most `timeout` for another writer to let go of it, or as
    /// long as it takes when `timeout` is `nil`. This blocks: never call it from the cooperative pool.
    ///
    /// - Parameters:
    ///   - removeLeftoversOf010: Removes what writers of version 0.1.0 left, saying whether all of it went; run
    ///     under the lock until it does, then never again for this lock file.
    ///   - body: Given the ownership of the directory, as the lock read it, if it could.
    /// - Throws: ``SystemError`` if the lock file cannot be opened or locked; ``Held`` when the wait ran out.
    func withLock<Result>(
        timeout: Duration?, removeLeftoversOf010: () -> Bool, _ body: (FileOwnership?) throws -> Result
    ) throws -> Result {
        let system = SystemCalls.current
        let descriptor = try open(system)
        defer { _ = system.calls.close(descriptor) }
        try acquire(descriptor, timeout: timeout, system)
        let (directory, length) = try inspect(descriptor, system)
        if length == 0, removeLeftoversOf010() {
            // A failure leaves the search to the next holder.
            _ = system.calls.ftruncate(descriptor, 1)
        }
        return try body(directory)
    }

    /// Opens the lock file, creating it if needed.
    ///
    /// Root gives a lock file it makes to the directory's owner, as it keeps a data file's owner, so that a root
    /// process saving in a user's directory does not lock the user out of it; ``inspect(_:_:)`` sets its mode.
    private func open(_ system: SystemCalls.Reference) throws -> Int32 {
        let flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        // Usually the lock file exists; a writer that makes it knows so by O_EXCL, and one that loses the race to
        // make it opens the winner's.
        var descriptor = retryingOnInterrupt { system.calls.open(path, flags, 0) }
        if descriptor < 0, errno == ENOENT {
            descriptor = retryingOnInterrupt { system.calls.open(path, flags | O_CREAT | O_EXCL, 0o600) }
            if descriptor >= 0 {
                // No writer of 0.1.0 held this lock before it was made, so none left a temporary to look for (one
                // still running beside this version is another matter: see the Guarantees). Failures leave the lock
                // file as made, which is no worse.
                _ = system.calls.ftruncate(descriptor, 1)
                if let directory = system.calls.ownership(-1, self.directory) {
                    _ = system.calls.effectiveUser() == 0
                        ? system.calls.fchown(descriptor, directory.owner, directory.group)
                        : system.calls.fchown(descriptor, uid_t.max, directory.group)
                }
            } else if errno == EEXIST {
                descriptor = retryingOnInterrupt { system.calls.open(path, flags, 0) }
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
    /// - Returns: The directory's ownership, if it could be read, and the lock file's length.
    /// - Throws: ``SystemError`` if the lock file cannot be read or is not a regular file.
    private func inspect(_ descriptor: Int32, _ system: SystemCalls.Reference) throws -> (FileOwnership?, Int) {
        var status = stat()
        guard system.calls.fstat(descriptor, &status) == 0 else { throw SystemError.last("open lock file", .lock) }
        guard status.isRegularFile else {
            throw SystemError(phase: .lock, operation: "open lock file", code: EINVAL)
        }
        // Read without its times: the save changes the directory next (see FileOwnership).
        let length = Int(status.st_size)
        guard let directory = system.calls.ownership(-1, self.directory) else { return (nil, length) }
        // A lock file made before its directory was shared is brought in line by its owner; a failure leaves it as
        // it was, which is no worse.
        let mode = (directory.mode & 0o222) * 3
        if status.st_mode & 0o7777 != mode {
            let user = system.calls.effectiveUser()
            if status.st_uid == user || user == 0 { _ = system.calls.fchmod(descriptor, mode) }
        }
        return (directory, length)
    }

    private func acquire(_ descriptor: Int32, timeout: Duration?, _ system: SystemCalls.Reference) throws {
        guard let timeout else {
            guard retryingOnInterrupt({ system.calls.flock(descriptor, LOCK_EX) }) == 0 else {
                throw SystemError.last("flock", .lock)
            }
            return
        }
        // flock cannot wait for a while and then give up, so the wait is a poll, at first often, so that a short
        // hold costs a short wait, then at most every 50 ms.
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if retryingOnInterrupt({ system.calls.flock(descriptor, LOCK_EX | LOCK_NB) }) == 0 { return }
            guard errno == EWOULDBLOCK else { throw SystemError.last("flock", .lock) }
            let remaining = deadline - clock.now
            guard remaining > .zero else {
                var status = stat()
                let holder = system.calls.fstat(descriptor, &status) == 0 ? Self.processID(holding: status) : nil
                throw Held(processID: holder)
            }
            // A pause is under a second: its attoseconds are all of it.
            Thread.sleep(forTimeInterval: Double(min(pause, remaining).components.attoseconds) * 1e-18)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// The process holding the `flock` on the lock file whose status is `status`, where the system can tell: Linux,
    /// from its lock table, which also knows locks taken by other programs. A line of `/proc/locks` reads
    /// `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF`, with the device's major and minor numbers in hexadecimal;
    /// the lines of waiters carry `->` and are skipped.
    private static func processID(holding status: stat) -> Int32? {
        #if os(Linux)
        guard let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let device = status.device
        let inode = UInt64(status.st_ino)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        for line in table.split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                UInt64(file[2]) == inode
            else { continue }
            return Int32(fields[4])
        }
        return nil
        #else
        return nil
        #endif
    }
}
