import Foundation

/// A file or directory open on a descriptor, and the calls made on it; each failure throws a ``SystemError`` that
/// names the call, for a write unless said otherwise.
struct OpenFile {
    let descriptor: Int32

    /// Opens `path`, or returns `nil` if nothing is there.
    static func open(
        _ path: String, _ flags: Int32, mode: mode_t = 0, operation: String = "open", _ phase: SystemError.Phase
    ) throws -> OpenFile? {
        let system = SystemCalls.current
        let descriptor = retryingOnInterrupt { system.open(path, flags | O_CLOEXEC, mode) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw SystemError.last(operation, phase)
        }
        return OpenFile(descriptor: descriptor)
    }

    /// Creates the file at `path`, open for writing, or returns `nil` if something is there already.
    static func create(exclusive path: String, mode: mode_t, operation: String) throws -> OpenFile? {
        let system = SystemCalls.current
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW
        let descriptor = retryingOnInterrupt { system.open(path, flags, mode) }
        guard descriptor >= 0 else {
            if errno == EEXIST { return nil }
            throw SystemError.last(operation, .write)
        }
        return OpenFile(descriptor: descriptor)
    }

    /// Writes `bytes` from the one at `offset` on, each at its own offset in the file.
    func write(_ bytes: Data, from offset: Int) throws {
        let system = SystemCalls.current
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var position = offset
            while position < buffer.count {
                let written = retryingOnInterrupt {
                    system.pwrite(descriptor, base + position, buffer.count - position, off_t(position))
                }
                guard written > 0 else {
                    throw written == 0
                        ? SystemError(phase: .write, operation: "write", code: EIO) : SystemError.last("write", .write)
                }
                position += written
            }
        }
    }

    func truncate(to length: Int) throws {
        guard SystemCalls.current.ftruncate(descriptor, off_t(length)) == 0 else {
            throw SystemError.last("ftruncate", .write)
        }
    }

    /// Flushes the file's data and metadata, and on Apple platforms the drive's own cache, to the disk.
    func flush(operation: String = "fsync") throws {
        let system = SystemCalls.current
        guard retryingOnInterrupt({ system.fullSync(descriptor) }) == 0 else {
            throw SystemError.last(operation, .write)
        }
    }

    /// Writes the file's data to the disk ahead of whatever is done to the file next: what a save without full
    /// durability needs so that its rename never reaches the disk before its bytes.
    func flushDataBeforeRename() throws {
        let system = SystemCalls.current
        guard retryingOnInterrupt({ system.dataSync(descriptor) }) == 0 else {
            throw SystemError.last(SystemCalls.dataSyncName, .write)
        }
    }

    func status(_ phase: SystemError.Phase = .write) throws -> stat {
        var status = stat()
        guard SystemCalls.current.fstat(descriptor, &status) == 0 else { throw SystemError.last("fstat", phase) }
        return status
    }

    /// The file's owner, group and mode, read without its times; `nil` if they cannot be read.
    var ownership: FileOwnership? {
        SystemCalls.current.ownership(descriptor, nil)
    }

    /// Gives the file to `owner` (`uid_t.max` keeps it) and `group`; whether that worked.
    func changeOwner(to owner: uid_t, group: gid_t) -> Bool {
        SystemCalls.current.fchown(descriptor, owner, group) == 0
    }

    func changeMode(to mode: mode_t) throws {
        guard SystemCalls.current.fchmod(descriptor, mode) == 0 else { throw SystemError.last("fchmod", .write) }
    }

    /// Whether this directory is append-only (`chattr +a`); `false` wherever the system cannot tell.
    var isAppendOnly: Bool {
        SystemCalls.current.isAppendOnly(descriptor)
    }

    /// Closes the file, saying whether the system reported a failure to write what it held.
    func close() throws {
        guard SystemCalls.current.close(descriptor) == 0 else { throw SystemError.last("close", .write) }
    }

    /// Closes the file where nothing depends on the answer.
    func closeQuietly() {
        _ = SystemCalls.current.close(descriptor)
    }
}

/// The calls made on paths.
enum FileSystem {
    /// The status of what is at `path`, without following a symbolic link; `nil` if nothing is there.
    static func entryStatus(_ path: String) throws -> stat? {
        var status = stat()
        guard SystemCalls.current.lstat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemError.last("lstat", .read)
        }
        return status
    }

    /// The status of the file at `path`, following symbolic links; `nil` if it cannot be read.
    static func status(_ path: String) -> stat? {
        var status = stat()
        return SystemCalls.current.stat(path, &status) == 0 ? status : nil
    }

    /// What the symbolic link at `path` points to.
    static func linkTarget(_ path: String) throws -> String {
        guard let target = SystemCalls.current.readlink(path) else { throw SystemError.last("readlink", .write) }
        return target
    }

    static func rename(_ path: String, to destination: String) throws {
        guard SystemCalls.current.rename(path, destination) == 0 else { throw SystemError.last("rename", .write) }
    }

    /// Removes the entry at `path`; `false` if there was none.
    @discardableResult
    static func remove(_ path: String, operation: String = "unlink") throws -> Bool {
        guard SystemCalls.current.unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw SystemError.last(operation, .write)
        }
        return true
    }

    /// Removes the entry at `path` where nothing depends on it: a leftover costs disk space, not data.
    static func removeQuietly(_ path: String) {
        _ = SystemCalls.current.unlink(path)
    }

    /// The names in the directory at `path`, or `nil` if it cannot be read.
    static func names(inDirectory path: String) -> [String]? {
        SystemCalls.current.directoryEntries(path)
    }

    /// The user and group this process acts as.
    static var effectiveUser: uid_t { SystemCalls.current.effectiveUser() }
    static var effectiveGroup: gid_t { SystemCalls.current.effectiveGroup() }
}
