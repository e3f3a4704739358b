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
struct FileLock {
    /// The lock file.
    let path: String

    /// The lock that protects the file at `dataPath`.
    init(protecting dataPath: String) {
        path = dataPath + ".lock"
    }

    /// Runs `body` while holding the lock, waiting as long as another writer holds it.
    ///
    /// This blocks the calling thread: call it from a thread that may block, never from the cooperative pool.
    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        let descriptor = retryingOnInterrupt { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644) }
        guard descriptor >= 0 else { throw SystemError.last("open lock file", .lock) }
        defer { close(descriptor) }
        guard retryingOnInterrupt({ flock(descriptor, LOCK_EX) }) == 0 else {
            throw SystemError.last("flock", .lock)
        }
        return try body()
    }
}
