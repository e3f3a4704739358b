import Foundation

/// Every system call the package makes on files, in one table that tests replace.
///
/// The rest of the package reaches the file system only through ``current``: a test binds its own table for the
/// operations it runs, to record each call (the crash-state tests) or to make any call fail with any error number
/// (the fault tests), and other tests running in parallel keep the real one. Each entry keeps its C call's contract:
/// a result of -1, or `nil`, with `errno` set, on failure.
///
/// Calls that mean one thing on every platform but are spelled differently (a full flush, a data flush, a rename
/// that does not replace, a clone) are one entry each, and their `#if` branches live here.
struct SystemCalls: Sendable {
    var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    var close: @Sendable (_ descriptor: Int32) -> Int32
    var read: @Sendable (_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int
    var pwrite: @Sendable (_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ offset: off_t) -> Int
    var ftruncate: @Sendable (_ descriptor: Int32, _ length: off_t) -> Int32
    var fstat: @Sendable (_ descriptor: Int32, _ status: inout stat) -> Int32
    var stat: @Sendable (_ path: String, _ status: inout stat) -> Int32
    var lstat: @Sendable (_ path: String, _ status: inout stat) -> Int32
    var readlink: @Sendable (_ path: String) -> String?
    var fchown: @Sendable (_ descriptor: Int32, _ owner: uid_t, _ group: gid_t) -> Int32
    var fchmod: @Sendable (_ descriptor: Int32, _ mode: mode_t) -> Int32
    /// Flushes a file's data and metadata to the disk, and on Apple platforms the drive's cache too.
    var fullSync: @Sendable (_ descriptor: Int32) -> Int32
    /// Flushes a file's data ahead of what is done to the file next, without waiting for the drive's cache where
    /// the system can tell the two apart.
    var dataSync: @Sendable (_ descriptor: Int32) -> Int32
    var rename: @Sendable (_ from: String, _ to: String) -> Int32
    /// Renames without replacing: 0 when done, -1 with `errno` `EEXIST` when the name is taken, or with another
    /// error number when the system or the file system cannot (then nothing happened).
    var renameNoReplace: @Sendable (_ from: String, _ to: String) -> Int32
    var link: @Sendable (_ from: String, _ to: String) -> Int32
    var unlink: @Sendable (_ path: String) -> Int32
    var mkdir: @Sendable (_ path: String, _ mode: mode_t) -> Int32
    /// The names in a directory, or `nil` if it cannot be read.
    var directoryEntries: @Sendable (_ path: String) -> [String]?
    var flock: @Sendable (_ descriptor: Int32, _ operation: Int32) -> Int32
    var effectiveUser: @Sendable () -> uid_t
    var effectiveGroup: @Sendable () -> gid_t
    /// The owner, group and mode of an open file (a `nil` path) or of a path, read without the file's times.
    var ownership: @Sendable (_ descriptor: Int32, _ path: String?) -> FileOwnership?
    /// Whether the open directory is append-only (`chattr +a`); `false` wherever the system cannot tell.
    var isAppendOnly: @Sendable (_ descriptor: Int32) -> Bool
    /// Makes the first `length` bytes of the open file `destination` share the blocks of `source`'s (Linux's
    /// `FICLONERANGE`); -1 with `errno` where the file system cannot.
    var cloneRange: @Sendable (_ source: Int32, _ destination: Int32, _ length: Int) -> Int32
    /// Creates `path` as a clone of the whole open file `source` (Apple's `fclonefileat`); -1 with `errno` where
    /// the file system cannot, and everywhere else.
    var cloneFile: @Sendable (_ source: Int32, _ path: String) -> Int32
    /// The extents that hold the first `length` bytes of an open file, at most `limit` of them.
    var extents: @Sendable (_ descriptor: Int32, _ length: Int, _ limit: Int) -> FileExtents.Map

    /// The table in use: the real one unless a test has bound another for the current task.
    @TaskLocal static var current = SystemCalls.live
}

/// Runs a system call again for as long as a signal interrupts it.
@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}

/// A failed system call: which one, and its error number.
///
/// The platform throws this; the operations turn it into a ``PersistenceError`` that names the file and the type.
struct SystemError: Error {
    enum Phase {
        case read
        case write
        case lock
    }

    var phase: Phase
    var operation: String
    var code: Int32

    /// The operation of a failed flush of a directory after a change in it: the change is in place, and a later
    /// durable operation flushes it.
    static let directoryFlush = "fsync directory"

    /// Captures `errno` for a call that has just failed.
    static func last(_ operation: String, _ phase: Phase) -> SystemError {
        SystemError(phase: phase, operation: operation, code: errno)
    }
}
