#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Every system call the package makes on files, in one table a test replaces for its task to record or fail any
/// call. Each entry keeps its C call's contract (-1, or `nil`, with `errno` set, on failure), its `#if`s in ``live``.
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
    /// Data and metadata, and on Apple platforms the drive's cache too.
    var fullSync: @Sendable (_ descriptor: Int32) -> Int32
    /// The data, ahead of what is done to the file next, without emptying the drive's cache where that differs.
    var dataSync: @Sendable (_ descriptor: Int32) -> Int32
    var rename: @Sendable (_ from: String, _ to: String) -> Int32
    /// -1 with `EEXIST` when the name is taken, with another error number when the system cannot.
    var renameNoReplace: @Sendable (_ from: String, _ to: String) -> Int32
    var link: @Sendable (_ from: String, _ to: String) -> Int32
    var unlink: @Sendable (_ path: String) -> Int32
    var mkdir: @Sendable (_ path: String, _ mode: mode_t) -> Int32
    /// `openat`, `fstatat` (never following a link), `unlinkat` and `renameat` (within one directory): the steps of a
    /// write, each relative to the directory opened once for it (`AT_FDCWD` and a path where it could not be).
    var openAt: @Sendable (_ directory: Int32, _ name: String, _ flags: Int32, _ mode: mode_t) -> Int32
    var statAt: @Sendable (_ directory: Int32, _ name: String, _ status: inout stat) -> Int32
    var unlinkAt: @Sendable (_ directory: Int32, _ name: String) -> Int32
    var renameAt: @Sendable (_ directory: Int32, _ from: String, _ to: String) -> Int32
    /// `nil`, without `errno`, if the directory cannot be read.
    var directoryEntries: @Sendable (_ path: String) -> [String]?
    var flock: @Sendable (_ descriptor: Int32, _ operation: Int32) -> Int32
    /// Of an open file (a `nil` path) or of a path, read without the file's times: see ``FileOwnership``.
    var ownership: @Sendable (_ descriptor: Int32, _ path: String?) -> FileOwnership?
    /// Whether an open directory is append-only (`chattr +a`); `false` wherever the system cannot tell.
    var isAppendOnly: @Sendable (_ descriptor: Int32) -> Bool
    /// Linux's `FICLONERANGE` of the first `length` bytes into an open file; -1 with `errno` elsewhere.
    var cloneRange: @Sendable (_ source: Int32, _ destination: Int32, _ length: Int) -> Int32
    /// Apple's `fclonefileat` of a whole open file to a new path; -1 with `errno` elsewhere.
    var cloneFile: @Sendable (_ source: Int32, _ path: String) -> Int32
    var extents: @Sendable (_ descriptor: Int32, _ length: Int, _ limit: Int) -> FileExtents
    /// The POSIX access ACL of the entry at `path`, not following a link, as Linux stores it in the extended
    /// attribute `system.posix_acl_access`; `nil` with `errno` where there is none (`ENODATA`) or the system has none.
    var accessControlList: @Sendable (_ path: String) -> [UInt8]?
    /// Gives an open file the ACL that ``accessControlList`` read; -1 with `errno` where it cannot.
    var setAccessControlList: @Sendable (_ descriptor: Int32, _ list: [UInt8]) -> Int32

    /// The table in use, held by one reference that each facility takes once: copying its closures out of the
    /// task-local for each of a save's 40 calls cost 281 ns a call against 148 by reference (Linux, release).
    @TaskLocal static var current = Reference(.live)

    final class Reference: Sendable {
        let calls: SystemCalls

        init(_ calls: SystemCalls) {
            self.calls = calls
        }
    }
}

extension TaskLocal<SystemCalls.Reference> {
    @discardableResult
    func withValue<Result>(_ calls: SystemCalls, operation: () throws -> Result) rethrows -> Result {
        try withValue(SystemCalls.Reference(calls), operation: operation)
    }
}

@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}

/// A failed system call: which one, and its error number; `Errors/` turns it into a ``PersistenceError``.
struct SystemError: Error {
    enum Phase {
        case read, write, lock
    }

    var phase: Phase
    var operation: String
    var code: Int32
    /// The file the call was about where it is not the one the operation names: the lock file.
    var path: String? = nil

    /// A directory's flush after a change in it, which is in place: a later durable operation flushes it.
    static let directoryFlush = "fsync directory"

    static func last(_ operation: String, _ phase: Phase) -> SystemError {
        SystemError(phase: phase, operation: operation, code: errno)
    }

    /// Throws if `result`, a C call's, is negative; `false` instead for `tolerated`, such as `ENOENT` for no file.
    @discardableResult
    static func check(
        _ result: some BinaryInteger, _ operation: String, _ phase: Phase = .write, tolerating tolerated: Int32? = nil
    ) throws -> Bool {
        guard result < 0 else { return true }
        if let tolerated, errno == tolerated { return false }
        throw last(operation, phase)
    }

    static func message(for code: Int32) -> String { String(cString: strerror(code)) }
}

/// A value that many threads share, reached only while holding its lock.
final class Locked<State> {
    // Allocated, so that the mutex never moves, as POSIX requires.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var state: State

    init(_ state: State) {
        self.state = state
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

// The lock serializes every access to `state`, which never escapes `withLock` by reference.
extension Locked: @unchecked Sendable where State: Sendable {}

/// Runs work that may block, such as a lock's wait, on a new thread, off the pool (<doc:Concurrency>) and off Dispatch,
/// whose queues share its threads on Linux (a task waited 6 s behind eight blocked saves); a thread costs tens of µs.
enum BlockingWork {
    /// Throws ``PlatformThread/Refused`` where no thread can be started.
    static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        // The thread inherits no task-local value: the table in use and the size limit are carried over by hand.
        let (system, sizeLimit) = (SystemCalls.current, FileReader.sizeLimit)
        return try await withCheckedThrowingContinuation { continuation in
            do {
                try PlatformThread.start {
                    continuation.resume(with: Swift.Result {
                        try SystemCalls.$current.withValue(system) {
                            try FileReader.$sizeLimit.withValue(sizeLimit, operation: work)
                        }
                    })
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// A thread of the system's own, as Foundation's `Thread` is, which Linux has only in the whole of Foundation.
enum PlatformThread {
    static let startOperation = "start thread"

    /// The system refused a new thread, with error number `code`: the user is at its limit of processes and threads
    /// (`RLIMIT_NPROC`) or the system out of memory, which is no reason to end the process.
    struct Refused: Error {
        var code: Int32
    }

    /// Starts `body` on a new thread, or throws ``Refused``.
    static func start(_ body: @escaping @Sendable () -> Void) throws {
        #if canImport(Darwin)
        Thread(block: body).start()
        #else
        let context = Unmanaged.passRetained(Body(run: body))
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context.toOpaque())
        guard started == 0 else {
            context.release()
            throw Refused(code: started)
        }
        pthread_detach(thread)
        #endif
    }

    /// Blocks the calling thread for `duration`.
    static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var request = remaining
        while nanosleep(&request, &remaining) != 0, errno == EINTR {
            request = remaining
        }
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void

        init(run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }
}

// MARK: - The system's own calls

extension SystemCalls {
    #if canImport(Darwin)
    static let dataSyncName = "fsync"
    #else
    static let dataSyncName = "fdatasync"
    #endif

    static let live = systemCallsOfThisMachine
}

// At file scope, where each C function's name is its own, not the table's entry of that name.
private let systemCallsOfThisMachine = SystemCalls(
    open: { path, flags, mode in open(path, flags, mode) },
    close: { close($0) },
    read: { descriptor, buffer, count in read(descriptor, buffer, count) },
    pwrite: { descriptor, bytes, count, offset in pwrite(descriptor, bytes, count, offset) },
    ftruncate: { ftruncate($0, $1) },
    fstat: { descriptor, status in fstat(descriptor, &status) },
    stat: { path, status in statFile(path, &status) },
    lstat: { path, status in lstat(path, &status) },
    readlink: { path in
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    },
    fchown: { fchown($0, $1, $2) },
    fchmod: { fchmod($0, $1) },
    fullSync: { descriptor in
        #if canImport(Darwin)
        // fsync on Apple platforms leaves the data in the drive's cache; F_FULLFSYNC asks the drive to write it.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    },
    dataSync: { descriptor in
        #if canImport(Darwin)
        // A barrier keeps the drive from writing what follows before the data, without emptying its cache.
        if fcntl(descriptor, F_BARRIERFSYNC) == 0 { return 0 }
        return fsync(descriptor)
        #else
        return fdatasync(descriptor)
        #endif
    },
    rename: { rename($0, $1) },
    renameNoReplace: { from, to in
        #if os(Linux)
        guard let renameat2 = linuxRenameAt2 else {
            errno = ENOSYS
            return -1
        }
        return renameat2(AT_FDCWD, from, AT_FDCWD, to, 1)  // RENAME_NOREPLACE
        #elseif canImport(Darwin)
        return renamex_np(from, to, UInt32(RENAME_EXCL))
        #else
        errno = ENOSYS
        return -1
        #endif
    },
    link: { link($0, $1) },
    unlink: { unlink($0) },
    mkdir: { mkdir($0, $1) },
    openAt: { directory, name, flags, mode in openat(directory, name, flags, mode) },
    statAt: { directory, name, status in fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) },
    unlinkAt: { directory, name in unlinkat(directory, name, 0) },
    renameAt: { directory, from, to in renameat(directory, from, directory, to) },
    directoryEntries: { try? FileManager.default.contentsOfDirectory(atPath: $0) },
    flock: { descriptor, operation in lockFile(descriptor, operation) },
    ownership: { descriptor, path in
        #if os(Linux)
        if let ownership = linuxStatxOwnership(descriptor, path) { return ownership }
        if errno != ENOSYS { return nil }
        #endif
        var status = stat()
        let result = path.map { statFile($0, &status) } ?? fstat(descriptor, &status)
        return result == 0 ? FileOwnership(owner: status.st_uid, group: status.st_gid, mode: status.st_mode) : nil
    },
    isAppendOnly: { descriptor in
        #if os(Linux)
        // FS_IOC_GETFLAGS and FS_APPEND_FL, from <linux/fs.h>, which Glibc does not import.
        var flags: Int32 = 0
        guard ioctl(descriptor, UInt(0x8008_6601), &flags) == 0 else { return false }
        return flags & 0x20 != 0
        #elseif canImport(Darwin)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return status.st_flags & UInt32(UF_APPEND | SF_APPEND) != 0
        #else
        return false
        #endif
    },
    cloneRange: { source, destination, length in
        #if os(Linux)
        // FICLONERANGE, `_IOW(0x94, 13, struct file_clone_range)`, from <linux/fs.h>, which Glibc does not import;
        // the structure is four 64-bit fields: source descriptor, source offset, length, destination offset.
        var range: [Int64] = [Int64(source), 0, Int64(length), 0]
        return ioctl(destination, UInt(0x4020_940D), &range)
        #else
        errno = ENOTSUP
        return -1
        #endif
    },
    cloneFile: { source, path in
        #if canImport(Darwin)
        return fclonefileat(source, AT_FDCWD, path, UInt32(CLONE_NOFOLLOW | CLONE_NOOWNERCOPY))
        #else
        errno = ENOTSUP
        return -1
        #endif
    },
    extents: { descriptor, length, limit in
        #if os(Linux)
        guard length > 0, limit > 0 else { return .extents([]) }
        // struct fiemap (32 bytes), and room for `limit` struct fiemap_extent (56 bytes each).
        let headerSize = 32, extentSize = 56
        return withUnsafeTemporaryAllocation(
            byteCount: headerSize + extentSize * limit, alignment: MemoryLayout<UInt64>.alignment
        ) { raw -> FileExtents in
            raw.initializeMemory(as: UInt8.self, repeating: 0)  // fm_start and fm_flags are 0
            raw.storeBytes(of: UInt64(length), toByteOffset: 8, as: UInt64.self)  // fm_length
            raw.storeBytes(of: UInt32(limit), toByteOffset: 24, as: UInt32.self)  // fm_extent_count
            // FS_IOC_FIEMAP, `_IOWR('f', 11, struct fiemap)`, from <linux/fs.h>, which Glibc does not import.
            guard ioctl(descriptor, UInt(0xC020_660B), raw.baseAddress!) == 0 else { return .unknown }
            let mapped = min(Int(raw.load(fromByteOffset: 20, as: UInt32.self)), limit)  // fm_mapped_extents
            var ranges: [Range<Int>] = []
            for index in 0..<mapped {
                let extent = headerSize + extentSize * index
                let start = Int(clamping: raw.load(fromByteOffset: extent, as: UInt64.self))  // fe_logical
                let count = Int(clamping: raw.load(fromByteOffset: extent + 16, as: UInt64.self))  // fe_length
                guard start < length else { break }
                ranges.append(start..<(start + min(count, length - start)))
            }
            // A full buffer that stops short of `length`, its last extent not flagged FIEMAP_EXTENT_LAST, leaves
            // extents unreported.
            if mapped == limit, let last = ranges.last, last.upperBound < length {
                let flags = raw.load(fromByteOffset: headerSize + extentSize * (mapped - 1) + 40, as: UInt32.self)
                if flags & 0x1 == 0 { return .tooMany(ranges) }
            }
            return .extents(ranges)
        }
        #else
        return .unknown
        #endif
    },
    accessControlList: { path in
        #if os(Linux)
        guard let getAttribute = linuxGetAttribute else {
            errno = ENOTSUP
            return nil
        }
        var list = [UInt8](repeating: 0, count: 256)
        while true {
            let length = getAttribute(path, posixAccessACL, &list, list.count)
            if length >= 0 { return Array(list[..<length]) }
            // Grown to the size asked for, which may grow again before the next call.
            guard errno == ERANGE else { return nil }
            let needed = getAttribute(path, posixAccessACL, nil, 0)
            guard needed >= 0 else { return nil }
            list = [UInt8](repeating: 0, count: needed + 64)
        }
        #else
        // Apple platforms keep ACLs apart from extended attributes, through calls this package does not make.
        errno = ENOTSUP
        return nil
        #endif
    },
    setAccessControlList: { descriptor, list in
        #if os(Linux)
        guard let setAttribute = linuxSetAttribute else {
            errno = ENOTSUP
            return -1
        }
        return setAttribute(descriptor, posixAccessACL, list, list.count, 0)
        #else
        errno = ENOTSUP
        return -1
        #endif
    }
)


/// The extents, runs of contiguous blocks, that hold a file's first bytes, as Linux's `FIEMAP` reports them.
enum FileExtents: Equatable {
    /// As ranges of offsets in the file, in order, the last one cut where the bytes asked about end.
    case extents([Range<Int>])
    /// More extents hold those bytes than were asked for: the first ones.
    case tooMany([Range<Int>])
    case unknown
}

// The C functions named like the C structures they take, which a qualified name would take for the structures.
private func statFile(_ path: String, _ status: inout stat) -> Int32 { stat(path, &status) }
private func lockFile(_ descriptor: Int32, _ operation: Int32) -> Int32 { flock(descriptor, operation) }

#if os(Linux)
// renameat2(2) and statx(2), in the C library since glibc 2.28 but not in the imported headers.
private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
private let linuxRenameAt2 = cFunction("renameat2", as: RenameAt2.self)

private typealias Statx = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer) -> Int32
private let statxFunction = cFunction("statx", as: Statx.self)

// lgetxattr(2) and fsetxattr(2), whose header <sys/xattr.h> Glibc does not import.
private typealias GetAttribute = @convention(c) (
    UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int
) -> Int
private let linuxGetAttribute = cFunction("lgetxattr", as: GetAttribute.self)
private typealias SetAttribute = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer, Int, Int32) -> Int32
private let linuxSetAttribute = cFunction("fsetxattr", as: SetAttribute.self)
private let posixAccessACL = "system.posix_acl_access"

private func cFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
}

/// The ownership from `statx`, asked for those fields alone; `nil` with `ENOSYS` where `stat` must read them.
private func linuxStatxOwnership(_ descriptor: Int32, _ path: String?) -> FileOwnership? {
    guard let statxFunction else {
        errno = ENOSYS
        return nil
    }
    // AT_EMPTY_PATH: the descriptor itself, not a path relative to it.
    let (directory, flags): (Int32, Int32) = path == nil ? (descriptor, 0x1000) : (AT_FDCWD, 0)
    // STATX_TYPE | STATX_MODE | STATX_UID | STATX_GID, and no times.
    let wanted: UInt32 = 0x1 | 0x2 | 0x8 | 0x10
    // `struct statx` is 256 bytes: stx_mask at 0, stx_uid at 20, stx_gid at 24, stx_mode (16 bits) at 28.
    return withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { raw in
        raw.initializeMemory(as: UInt8.self, repeating: 0)
        guard statxFunction(directory, path ?? "", flags, wanted, raw.baseAddress!) == 0 else { return nil }
        guard raw.load(fromByteOffset: 0, as: UInt32.self) & wanted == wanted else {
            errno = ENOSYS
            return nil
        }
        return FileOwnership(
            owner: raw.load(fromByteOffset: 20, as: UInt32.self),
            group: raw.load(fromByteOffset: 24, as: UInt32.self),
            mode: mode_t(raw.load(fromByteOffset: 28, as: UInt16.self))
        )
    }
}
#endif
