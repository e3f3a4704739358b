#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Open files

/// An open file or directory; each failed call throws a ``SystemError`` naming it, in the write phase unless told.
struct OpenFile {
    let descriptor: Int32
    let system: SystemCalls.Reference

    /// Opens `path`, or returns `nil` if the call fails with `absent`: by default, if nothing is there.
    static func open(
        _ path: String, _ flags: Int32, mode: mode_t = 0, operation: String = "open", _ phase: SystemError.Phase,
        nilWhen absent: Int32 = ENOENT
    ) throws -> OpenFile? {
        let system = SystemCalls.current
        let descriptor = retryingOnInterrupt { system.calls.open(path, flags | O_CLOEXEC, mode) }
        guard try SystemError.check(descriptor, operation, phase, tolerating: absent) else { return nil }
        return OpenFile(descriptor: descriptor, system: system)
    }

    /// Creates the file at `path`, open for writing, or returns `nil` if something is there already.
    static func create(exclusive path: String, mode: mode_t, operation: String) throws -> OpenFile? {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
        return try open(path, flags, mode: mode, operation: operation, .write, nilWhen: EEXIST)
    }

    /// Writes `bytes` from the one at `offset` on, each at its own offset in the file.
    func write(_ bytes: Data, from offset: Int) throws {
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var position = offset
            while position < buffer.count {
                let written = retryingOnInterrupt {
                    system.calls.pwrite(descriptor, base + position, buffer.count - position, off_t(position))
                }
                try SystemError.check(written, "write")
                guard written > 0 else { throw SystemError(phase: .write, operation: "write", code: EIO) }
                position += written
            }
        }
    }

    func truncate(to length: Int) throws {
        try SystemError.check(system.calls.ftruncate(descriptor, off_t(length)), "ftruncate")
    }

    func flush(operation: String = "fsync") throws {
        try SystemError.check(retryingOnInterrupt { system.calls.fullSync(descriptor) }, operation)
    }

    /// Writes the file's data ahead of what is done to it next, so that a rename never reaches the disk first.
    func flushDataBeforeRename() throws {
        try SystemError.check(retryingOnInterrupt { system.calls.dataSync(descriptor) }, SystemCalls.dataSyncName)
    }

    func status(_ phase: SystemError.Phase = .write) throws -> stat {
        var status = stat()
        try SystemError.check(system.calls.fstat(descriptor, &status), "fstat", phase)
        return status
    }

    var ownership: FileOwnership? { system.calls.ownership(descriptor, nil) }

    /// Gives the file to `owner` (`uid_t.max` keeps it) and `group`; whether that worked.
    func changeOwner(to owner: uid_t, group: gid_t) -> Bool {
        system.calls.fchown(descriptor, owner, group) == 0
    }

    func changeMode(to mode: mode_t) throws {
        try SystemError.check(system.calls.fchmod(descriptor, mode), "fchmod")
    }

    var isAppendOnly: Bool { system.calls.isAppendOnly(descriptor) }

    /// Throws if the system reports a failure to write what the file held.
    func close() throws {
        try SystemError.check(system.calls.close(descriptor), "close")
    }

    func closeQuietly() {
        _ = system.calls.close(descriptor)
    }
}

// MARK: - Paths

/// Path strings taken apart and joined at `/` as the system reads them, by text alone: what `NSString`'s path methods
/// did, which the smallest Foundation lacks.
enum Path {
    /// `/a/b` is in `/a`, `/a` in `/`, and `a` in `""`; trailing slashes do not count.
    static func directory(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let directory = withoutTrailingSlashes(String(trimmed[..<slash]))
        return directory.isEmpty ? "/" : directory
    }

    /// `b` for `/a/b` and `/a/b/`; `/` for `/`.
    static func name(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    static func appending(_ name: String, to directory: String) -> String {
        directory.isEmpty ? name : directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = path
        while path.utf8.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}

enum FileSystem {
    /// The status of what is at `path`, without following a symbolic link; `nil` if nothing is there.
    static func entryStatus(_ path: String) throws -> stat? {
        var status = stat()
        let result = SystemCalls.current.calls.lstat(path, &status)
        return try SystemError.check(result, "lstat", .read, tolerating: ENOENT) ? status : nil
    }

    /// The status of the file at `path`, following symbolic links; `nil` if it cannot be read.
    static func status(_ path: String) -> stat? {
        var status = stat()
        return SystemCalls.current.calls.stat(path, &status) == 0 ? status : nil
    }

    static func linkTarget(_ path: String) throws -> String {
        guard let target = SystemCalls.current.calls.readlink(path) else { throw SystemError.last("readlink", .write) }
        return target
    }

    static func rename(_ path: String, to destination: String) throws {
        try SystemError.check(SystemCalls.current.calls.rename(path, destination), "rename")
    }

    /// Removes the entry at `path`; `false` if there was none.
    @discardableResult
    static func remove(_ path: String, operation: String = "unlink") throws -> Bool {
        try SystemError.check(SystemCalls.current.calls.unlink(path), operation, tolerating: ENOENT)
    }

    static func names(inDirectory path: String) -> [String]? { SystemCalls.current.calls.directoryEntries(path) }

    // No test replaces these: no fault or crash state depends on who runs the save.
    static var effectiveUser: uid_t { geteuid() }
    static var effectiveGroup: gid_t { getegid() }
}

enum FileRename {
    /// Renames `path` to the first of `candidates` that names no file, never replacing one, and returns it; by `link`
    /// and `unlink` where the system cannot. A failure leaves the old name, unless ``SystemError/directoryFlush``.
    static func renameWithoutReplacing(
        _ path: String, to candidates: some Sequence<String>, durability: Durability
    ) throws -> String {
        let system = SystemCalls.current
        for candidate in candidates {
            if system.calls.renameNoReplace(path, candidate) != 0 {
                if errno == EEXIST { continue }
                guard try SystemError.check(system.calls.link(path, candidate), "link", tolerating: EEXIST) else {
                    continue
                }
                guard system.calls.unlink(path) == 0 else {
                    let failure = SystemError.last("unlink", .write)
                    _ = system.calls.unlink(candidate)
                    throw failure
                }
            }
            if durability == .full {
                try Directory.flushAfterChange(atPath: Path.directory(of: path))
            }
            return candidate
        }
        throw SystemError(phase: .write, operation: "link", code: EEXIST)
    }
}

// MARK: - Directories

enum Directory {
    /// Creates the directory at `path` and any missing parents; with full durability flushes each new one's parent,
    /// a flush named apart from the one after a rename, since it fails before the file is written.
    static func create(atPath path: String, durability: Durability) throws {
        let system = SystemCalls.current
        let parent = Path.directory(of: path)
        // 0700, as the XDG Base Directory specification asks of a directory it makes: what one user saves is theirs
        // to share. Directories that exist are left as they are.
        if system.calls.mkdir(path, 0o700) != 0 {
            if errno == EEXIST { return }
            guard errno == ENOENT, parent != path, !parent.isEmpty else {
                throw SystemError.last("create directory", .write)
            }
            try create(atPath: parent, durability: durability)
            try SystemError.check(system.calls.mkdir(path, 0o700), "create directory", tolerating: EEXIST)
        }
        if durability == .full { try flushAfterChange(atPath: parent, naming: "flush new directory") }
    }

    /// Flushes the directory after a change in it, so that the change survives a power loss; opened before the
    /// change or, if `nil`, now. Any failure, to open it too, is named `operation`: the change is in place.
    static func flushAfterChange(
        atPath path: String, openDirectory: OpenFile? = nil, naming operation: String = SystemError.directoryFlush
    ) throws {
        if let openDirectory { return try openDirectory.flush(operation: operation) }
        guard let directory = try OpenFile.open(path, O_RDONLY | O_DIRECTORY, operation: operation, .write) else {
            throw SystemError(phase: .write, operation: operation, code: ENOENT)
        }
        defer { directory.closeQuietly() }
        try directory.flush(operation: operation)
    }
}

// MARK: - A directory opened once

/// A directory opened once, and the entries of it that a write checks and acts on, each reached through it by name
/// (`openat`, `fstatat`, `unlinkat`, `renameat`): whatever is swapped in for the directory or a parent meanwhile, the
/// check and the act are on the same directory. One writable and searchable but not readable cannot be opened; its
/// path stands in, as before.
struct OpenDirectory {
    let path: String
    /// The open directory, `nil` where it could not be opened.
    let file: OpenFile?

    init(_ path: String) {
        self.path = path
        file = try? OpenFile.open(path, O_RDONLY | O_DIRECTORY, .write)
    }

    private var system: SystemCalls.Reference { file?.system ?? SystemCalls.current }

    /// The directory and the name to hand an `*at` call for the entry `name`.
    private func place(_ name: String) -> (Int32, String) {
        file.map { ($0.descriptor, name) } ?? (AT_FDCWD, Path.appending(name, to: path))
    }

    /// Opens the entry `name`, or returns `nil` if the call fails with `absent`: by default, if nothing is there.
    func open(
        _ name: String, _ flags: Int32, mode: mode_t = 0, operation: String = "open", _ phase: SystemError.Phase,
        nilWhen absent: Int32 = ENOENT
    ) throws -> OpenFile? {
        let system = system
        let (directory, name) = place(name)
        let descriptor = retryingOnInterrupt { system.calls.openAt(directory, name, flags | O_CLOEXEC, mode) }
        guard try SystemError.check(descriptor, operation, phase, tolerating: absent) else { return nil }
        return OpenFile(descriptor: descriptor, system: system)
    }

    /// Creates the entry `name`, open for writing, or returns `nil` if something is there already.
    func create(exclusive name: String, mode: mode_t, operation: String) throws -> OpenFile? {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
        return try open(name, flags, mode: mode, operation: operation, .write, nilWhen: EEXIST)
    }

    /// The status of the entry `name`, without following a link; `nil` if nothing is there.
    func entryStatus(_ name: String, _ phase: SystemError.Phase = .write) throws -> stat? {
        var status = stat()
        let (directory, name) = place(name)
        let result = system.calls.statAt(directory, name, &status)
        return try SystemError.check(result, "fstatat", phase, tolerating: ENOENT) ? status : nil
    }

    /// Removes the entry `name`; `false` if there was none.
    @discardableResult
    func remove(_ name: String, operation: String = "unlink") throws -> Bool {
        let (directory, name) = place(name)
        return try SystemError.check(system.calls.unlinkAt(directory, name), operation, tolerating: ENOENT)
    }

    func rename(_ name: String, to destination: String) throws {
        let (directory, from) = place(name)
        let to = place(destination).1
        try SystemError.check(system.calls.renameAt(directory, from, to), "rename")
    }

    /// Flushes the directory after a change in it (see ``Directory/flushAfterChange(atPath:openDirectory:naming:)``).
    func flushAfterChange(naming operation: String = SystemError.directoryFlush) throws {
        try Directory.flushAfterChange(atPath: path, openDirectory: file, naming: operation)
    }

    func close() {
        file?.closeQuietly()
    }
}

// MARK: - Locks

/// The `flock` on `<name>.lock` that serializes the writers of one file: why a sibling, never deleted, opened anew
/// by each acquisition, is in <doc:Guarantees#Locking>; unlike `F_SETLK`, closing another descriptor keeps it.
///
/// Whoever may write the directory may have put something at the lock file's path first, so what is there is trusted
/// no further than the kernel trusts a link in a sticky directory: it is never followed, it must be a regular file,
/// and in a directory that anyone may write it must belong to this process's user or to the directory's owner; else
/// it is ``InTheWay``. Only a lock file that this process made, with one link, gets an owner and a mode: a file that
/// someone else put there keeps its own, so that a save never opens up anybody's file.
struct FileLock {
    let path: String
    let directory: String

    init(protecting dataPath: String, in directory: String) {
        path = dataPath + ".lock"
        self.directory = directory
    }

    /// The lock was held by another writer, `processID` where the system can tell, longer than the caller would wait.
    struct Held: Error {
        var path: String
        var processID: Int32?
        /// The holder's command name, where the system tells it (`/proc/<pid>/comm` on Linux).
        var processName: String?
    }

    /// Runs `body` under the lock, given the directory's ownership if read, after a wait of at most `timeout` (never
    /// on the cooperative pool) or throws ``Held``; `removeLeftoversOf010` runs first, until a run says all is gone.
    /// Throws ``InTheWay`` for what may not serve as the lock file, a ``SystemError`` naming it if the system refuses.
    func withLock<Result>(
        timeout: Duration?, removeLeftoversOf010: () -> Bool, _ body: (FileOwnership?) throws -> Result
    ) throws -> Result {
        let system = SystemCalls.current
        let directory = system.calls.ownership(-1, self.directory)
        let (descriptor, size) = try open(system, in: directory)
        defer { _ = system.calls.close(descriptor) }
        try acquire(descriptor, timeout: timeout, system)
        if size == 0, removeLeftoversOf010() {
            // A failure leaves the search to the next holder.
            _ = system.calls.ftruncate(descriptor, 1)
        }
        return try body(directory)
    }

    /// Opens the lock file and returns it with its size, making it if needed: then O_EXCL tells who made it, and a
    /// loser opens the winner's.
    private func open(_ system: SystemCalls.Reference, in directory: FileOwnership?) throws -> (Int32, Int) {
        let flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var descriptor = retryingOnInterrupt { system.calls.open(path, flags, 0) }
        if descriptor < 0, errno == ENOENT {
            descriptor = retryingOnInterrupt { system.calls.open(path, flags | O_CREAT | O_EXCL, 0o600) }
            if descriptor >= 0 {
                adopt(descriptor, in: directory, system)
                return (descriptor, 1)
            }
            if errno == EEXIST { descriptor = retryingOnInterrupt { system.calls.open(path, flags, 0) } }
        }
        guard descriptor >= 0 else {
            let failure = failure("open lock file")
            // A link (ELOOP), a directory, a socket, or a file this user may not open: whose is it?
            if failure.code != ENOENT, let status = try? FileSystem.entryStatus(path),
                !status.isRegularFile || status.st_uid != FileSystem.effectiveUser
            {
                throw InTheWay(path: path, owner: status.st_uid)
            }
            throw failure
        }
        var status = stat()
        guard system.calls.fstat(descriptor, &status) == 0 else {
            let failure = failure("fstat lock file")
            _ = system.calls.close(descriptor)
            throw failure
        }
        guard status.isRegularFile, Self.mayServe(ownedBy: status.st_uid, in: directory) else {
            _ = system.calls.close(descriptor)
            throw InTheWay(path: path, owner: status.st_uid)
        }
        // A lock file with other links is some other file too, which the search for 0.1.0's leftovers never writes.
        return (descriptor, status.st_nlink == 1 ? Int(status.st_size) : 1)
    }

    /// Whether a lock file of `owner`'s may serve: in a directory that anyone may write, anyone may have made it.
    private static func mayServe(ownedBy owner: uid_t, in directory: FileOwnership?) -> Bool {
        guard let directory, directory.mode & 0o002 != 0 else { return true }
        return owner == FileSystem.effectiveUser || owner == directory.owner
    }

    /// Gives a lock file this process just made its one byte (no writer of 0.1.0 held it), its owner if root made it
    /// (the directory's, so that root saving in a user's directory does not lock the user out) and its group (the
    /// directory's), and the mode of <doc:Guarantees#Locking> whatever the umask. A failure leaves it as made.
    private func adopt(_ descriptor: Int32, in directory: FileOwnership?, _ system: SystemCalls.Reference) {
        _ = system.calls.ftruncate(descriptor, 1)
        var status = stat()
        guard system.calls.fstat(descriptor, &status) == 0, status.st_nlink == 1 else { return }
        var sharesGroup = false
        if let directory {
            let owner = FileSystem.effectiveUser == 0 ? directory.owner : uid_t.max
            sharesGroup = system.calls.fchown(descriptor, owner, directory.group) == 0
                || status.st_gid == directory.group
        }
        _ = system.calls.fchmod(descriptor, Self.mode(in: directory, sharingItsGroup: sharesGroup))
    }

    /// Read and write for the owner, and for the directory's group where that group may write the directory and
    /// others may not; never for others, as `flock` needs only a descriptor open for reading.
    static func mode(in directory: FileOwnership?, sharingItsGroup: Bool) -> mode_t {
        guard let directory, sharingItsGroup, directory.mode & 0o020 != 0, directory.mode & 0o002 == 0 else {
            return 0o600
        }
        return 0o660
    }

    private func acquire(_ descriptor: Int32, timeout: Duration?, _ system: SystemCalls.Reference) throws {
        guard let timeout else {
            guard retryingOnInterrupt({ system.calls.flock(descriptor, LOCK_EX) }) == 0 else { throw failure("flock") }
            return
        }
        // flock cannot wait for a while and then give up, so the wait is a poll, at first often, so that a short
        // hold costs a short wait, then at most every 50 ms. A poller is not queued: under steady contention a
        // writer that takes the lock again at once can win it over and over, which the default timeout allows for.
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if retryingOnInterrupt({ system.calls.flock(descriptor, LOCK_EX | LOCK_NB) }) == 0 { return }
            guard errno == EWOULDBLOCK else { throw failure("flock") }
            let remaining = deadline - clock.now
            guard remaining > .zero else {
                var status = stat()
                let holder = system.calls.fstat(descriptor, &status) == 0 ? Self.processID(holding: status) : nil
                throw Held(path: path, processID: holder, processName: holder.flatMap(Self.name(ofProcess:)))
            }
            PlatformThread.sleep(for: min(pause, remaining))
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    private func failure(_ operation: String) -> SystemError {
        var failure = SystemError.last(operation, .lock)
        failure.path = path
        return failure
    }

    /// The process holding the lock file whose status is `status`, from Linux's lock table, whose lines read
    /// `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF` (major and minor in hexadecimal; waiters' carry `->`).
    private static func processID(holding status: stat) -> Int32? {
        #if os(Linux)
        guard let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let device = status.device
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        for line in table.split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                UInt64(file[2]) == UInt64(status.st_ino)
            else { continue }
            return Int32(fields[4])
        }
        #endif
        return nil
    }

    /// The command name of process `processID`, as `ps` shows it, where the system tells it.
    private static func name(ofProcess processID: Int32) -> String? {
        #if os(Linux)
        guard let name = try? String(contentsOfFile: "/proc/\(processID)/comm", encoding: .utf8) else { return nil }
        let trimmed = name.hasSuffix("\n") ? String(name.dropLast()) : name
        return trimmed.isEmpty ? nil : trimmed
        #else
        return nil
        #endif
    }
}

/// Something at the path of a file the package makes, a lock file or a temporary, that it may neither use nor
/// remove: another user's file, or what is not a regular file.
struct InTheWay: Error {
    var path: String
    var owner: uid_t
}

// MARK: - Reading

enum FileReader {
    /// 1 GiB: a value is held in memory several times over, and a failed allocation traps. Writes keep to it too,
    /// so that every file written can be read; a test lowers it for its task to reach it without such a file.
    @TaskLocal static var sizeLimit: Int64 = 1 << 30

    /// The file's bytes and the identity of that version, or `nil` if there is no file; a FIFO or a device throws a
    /// ``SystemError`` rather than be waited on (<doc:Guarantees#Files-that-cannot-be-read>). `path` is one whose
    /// links are resolved: a link found there now, swapped in since, is refused with `ELOOP`, not followed.
    static func contents(atPath path: String) throws -> (Data, FileIdentity)? {
        guard let file = try OpenFile.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, .read) else { return nil }
        defer { file.closeQuietly() }
        let status = try file.status(.read)
        guard status.isRegularFile else {
            throw SystemError(phase: .read, operation: "open", code: status.isDirectory ? EISDIR : EINVAL)
        }
        let limit = sizeLimit
        guard Int64(status.st_size) <= limit else { throw FileTooLarge(size: Int64(status.st_size)) }
        // The size is a hint: a file rewritten in place may have grown since fstat, so the read goes on to the end,
        // and stops once the limit is passed.
        // Room for the read that finds the end, and for an append's few records, so that neither copies the file.
        var bytes = readBuffer(count: Int(status.st_size) + 16_384)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard Int64(filled) <= limit else { throw FileTooLarge(size: Int64(filled)) }
                bytes.count += max(4096, bytes.count / 2)
            }
            let count = bytes.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt {
                    file.system.calls.read(file.descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                }
            }
            try SystemError.check(count, "read", .read)
            if count == 0 { break }
            filled += count
        }
        bytes.count = filled
        return (bytes, FileIdentity(status))
    }

    /// At least `count` bytes to read into. On Linux, from 2 MiB on, in whole huge pages where the system grants
    /// them on request: the read then faults in one page each 2 MiB rather than 512, which for a file of 10 MB was
    /// half the read's time. The bytes are not zeroed: only those read are ever counted in.
    private static func readBuffer(count: Int) -> Data {
        #if os(Linux)
        let hugePage = 1 << 21
        let capacity = (count + hugePage - 1) & -hugePage
        var memory: UnsafeMutableRawPointer?
        if count >= hugePage, posix_memalign(&memory, hugePage, capacity) == 0, let memory {
            // Only a hint: where it is refused, the pages are the usual ones.
            _ = madvise(memory, capacity, MADV_HUGEPAGE)
            return Data(bytesNoCopy: memory, count: capacity, deallocator: .free)
        }
        #endif
        return Data(count: count)
    }

    struct FileTooLarge: Error {
        var size: Int64
    }
}

// MARK: - Clones

/// Makes a new file that shares the blocks of an existing one where the file system can (XFS with reflink, btrfs,
/// APFS); a device that cannot is remembered for the process's life, to cost one failed call, not one per save.
enum FileClone {
    private static let refusingDevices = Locked<Set<UInt64>>([])

    static func mayClone(onDevice device: UInt64) -> Bool { !refusingDevices.withLock { $0.contains(device) } }

    /// Creates the file at `path`, open for writing and `total` bytes long in the end, sharing as much of the first
    /// `length` bytes of `source` as is worth it (Apple: the whole file; Linux: blocks), else made by `create`;
    /// returns it and, if it shares any, how many bytes are shared and how long it now is.
    static func create(
        atPath path: String, sharing source: (file: OpenFile, status: stat), keeping length: Int, total: Int,
        orCreate create: () throws -> OpenFile
    ) throws -> (file: OpenFile, clone: (shared: Int, length: Int)?) {
        let system = source.file.system
        #if canImport(Darwin)
        // A clone carries the source's flags and extended attributes, which a file written whole does not. Flags
        // that would keep the clone from being written or removed, or that only the superuser may clear, mean
        // writing it whole; the rest, and the attributes, are cleared, so that either way a save leaves one file.
        let blocking = UInt32(UF_IMMUTABLE | UF_APPEND) | ~UInt32(UF_SETTABLE)
        guard source.status.st_flags & blocking == 0 else { return (try create(), nil) }
        var cloned = system.calls.cloneFile(source.file.descriptor, path) == 0
        if !cloned, errno == EEXIST, system.calls.unlink(path) == 0 {
            cloned = system.calls.cloneFile(source.file.descriptor, path) == 0
        }
        guard cloned else {
            noteFailure(errno, onDevice: source.status.device)
            return (try create(), nil)
        }
        if let file = try? OpenFile.open(path, O_WRONLY | O_NOFOLLOW, .write) {
            if fchflags(file.descriptor, 0) == 0, removeExtendedAttributes(of: file.descriptor) {
                let clonedLength = Int(source.status.st_size)
                return (file, (min(length, clonedLength), clonedLength))
            }
            file.closeQuietly()
        }
        _ = system.calls.unlink(path)
        return (try create(), nil)
        #else
        let file = try create()
        let blockSize = Int(source.status.st_blksize)
        let shared = sharedLength(of: source.file, keeping: length, total: total, blockSize: blockSize)
        guard shared > 0 else { return (file, nil) }
        guard system.calls.cloneRange(source.file.descriptor, file.descriptor, shared) == 0 else {
            noteFailure(errno, onDevice: source.status.device)
            return (file, nil)
        }
        return (file, (shared, shared))
        #endif
    }

    #if canImport(Darwin)
    /// Removes every extended attribute of the open file; `false` if one may be left.
    private static func removeExtendedAttributes(of descriptor: Int32) -> Bool {
        let size = flistxattr(descriptor, nil, 0, 0)
        guard size > 0 else { return size == 0 }
        var names = [CChar](repeating: 0, count: size)
        let length = flistxattr(descriptor, &names, size, 0)
        guard length >= 0 else { return false }
        return names[..<length].split(separator: 0).allSatisfy { name in
            (Array(name) + [0]).withUnsafeBufferPointer { fremovexattr(descriptor, $0.baseAddress, 0) == 0 }
        }
    }
    #endif

    /// How many bytes at the start of `source` to share: the whole blocks before `length`, less the small extents
    /// at their end. A clone costs a step per extent and each append leaves one, so the extent before the blocks to
    /// write is rewritten with them while shorter (extents then halve to the end, as in a binary counter). A file in
    /// over ``extentLimit`` extents under 64 KiB on average is written whole; larger (compressed: 128 KiB) are shared.
    private static func sharedLength(of source: OpenFile, keeping length: Int, total: Int, blockSize: Int) -> Int {
        guard blockSize > 0, length >= blockSize else { return 0 }
        var shared = length / blockSize * blockSize
        switch source.system.calls.extents(source.descriptor, shared, extentLimit) {
        case .unknown:
            return shared
        case .tooMany(let first):
            let covered = first.reduce(0) { $0 + $1.count }
            return covered / max(first.count, 1) < smallExtent ? 0 : shared
        case .extents(let extents):
            // What is written is counted in whole blocks, as the file system allocates it.
            var written = (total - shared + blockSize - 1) / blockSize * blockSize
            for extent in extents.reversed() {
                let rewritten = shared - extent.lowerBound
                guard rewritten < written else { break }
                written += rewritten
                shared = extent.lowerBound
            }
            // A clone must begin and end at whole blocks of the caller's size, not the file system's.
            return shared / blockSize * blockSize
        }
    }

    /// More extents than a file kept by ``sharedLength(of:keeping:total:blockSize:)`` has, below an exabyte.
    private static let extentLimit = 128

    private static let smallExtent = 64 << 10

    /// Remembers `device` when `code` says its file system cannot clone, not that it failed this once.
    private static func noteFailure(_ code: Int32, onDevice device: UInt64) {
        let unsupported: Set<Int32> = [EOPNOTSUPP, ENOTSUP, EXDEV, EINVAL, ENOTTY, ENOSYS]
        if unsupported.contains(code) { _ = refusingDevices.withLock { $0.insert(device) } }
    }
}

// MARK: - Status

/// What tells one version of a file from another without reading it (<doc:Guarantees#The-in-process-cache>). The
/// change time is what no tool can set: `cp --preserve=timestamps`, `rsync -t` or `touch -d` put back the size and
/// the modification time, and a file deleted and made again may take back the inode, but each moves the change time.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationSeconds: Int64
    var modificationNanoseconds: Int64
    var changeSeconds: Int64
    var changeNanoseconds: Int64

    init(_ status: stat) {
        device = status.device
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        ((modificationSeconds, modificationNanoseconds), (changeSeconds, changeNanoseconds)) = status.times
    }
}

/// A file's owner, group and mode, read without its times: from Linux 6.13 a file whose times were read gets a
/// finer timestamp at its next change, which cost an XFS append that read its temporary's times 4-7%.
struct FileOwnership {
    var owner: uid_t
    var group: gid_t
    /// The type and permission bits, as `st_mode` holds them.
    var mode: mode_t
}

/// What polling compares: the file's identity, whose change time a change of permissions moves, and its mode.
struct EntryStatus: Hashable, Sendable {
    var identity: FileIdentity
    var mode: UInt32

    init?(atPath path: String, following: Bool) {
        guard let status = following ? FileSystem.status(path) : try? FileSystem.entryStatus(path) else { return nil }
        identity = FileIdentity(status)
        mode = UInt32(status.st_mode)
    }
}

extension stat {
    /// The device, as an unsigned number whatever the platform's `dev_t`: a signed one is taken bit for bit.
    var device: UInt64 { UInt64(truncatingIfNeeded: st_dev) }

    var times: (modified: (Int64, Int64), changed: (Int64, Int64)) {
        #if canImport(Darwin)
        let (modified, changed) = (st_mtimespec, st_ctimespec)
        #else
        let (modified, changed) = (st_mtim, st_ctim)
        #endif
        return ((Int64(modified.tv_sec), Int64(modified.tv_nsec)), (Int64(changed.tv_sec), Int64(changed.tv_nsec)))
    }

    /// Whether `other` is the status of the same file, whatever was done to it in between.
    func isSameFile(as other: stat) -> Bool { device == other.device && st_ino == other.st_ino }

    var isRegularFile: Bool { st_mode & S_IFMT == S_IFREG }
    var isDirectory: Bool { st_mode & S_IFMT == S_IFDIR }
    var isSymbolicLink: Bool { st_mode & S_IFMT == S_IFLNK }
}
