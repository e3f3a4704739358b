import Foundation

/// What tells one version of a file from another without reading it: device, inode, size and modification time.
///
/// Every save writes a new file and renames it into place, so a save by anyone changes the inode. An editor that
/// rewrites the file in place keeps the inode but changes the size or the modification time, which is kept to the
/// nanosecond.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationSeconds: Int64
    var modificationNanoseconds: Int64

    init(_ status: stat) {
        device = status.device
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        (modificationSeconds, modificationNanoseconds) = status.modificationTime
    }

    /// The identity of the file at `path`, following symbolic links; `nil` if there is none.
    static func ofFile(atPath path: String) -> FileIdentity? {
        var status = stat()
        guard SystemCalls.current.stat(path, &status) == 0 else { return nil }
        return FileIdentity(status)
    }
}

/// A file's owner, group and mode, read without its timestamps.
///
/// A save reads these of the directory and of its new temporary before it changes them. Reading a file's times is
/// not free on Linux 6.13 and later: a file whose times were read gets a finer timestamp at its next change, and on
/// XFS an append that read its temporary's times before renaming it took 4-7% longer, measured. So on Linux `statx`
/// asks for these fields alone; elsewhere, or where the C library has no `statx`, `stat` reads them.
struct FileOwnership {
    var owner: uid_t
    var group: gid_t
    /// The type and permission bits, as `st_mode` holds them.
    var mode: mode_t

    init(owner: uid_t, group: gid_t, mode: mode_t) {
        self.owner = owner
        self.group = group
        self.mode = mode
    }

    init(_ status: stat) {
        self.init(owner: status.st_uid, group: status.st_gid, mode: status.st_mode)
    }

    /// The ownership of the open file `descriptor`; `nil` with `errno` set if it cannot be read.
    static func of(descriptor: Int32) -> FileOwnership? {
        SystemCalls.current.ownership(descriptor, nil)
    }

    /// The ownership of the file at `path`, following symbolic links; `nil` with `errno` set if it cannot be read.
    static func of(path: String) -> FileOwnership? {
        SystemCalls.current.ownership(-1, path)
    }
}

/// What polling compares: the file's identity, and its mode and change time, which a change of permissions moves.
struct EntryStatus: Hashable, Sendable {
    var identity: FileIdentity
    var mode: UInt32
    var changeSeconds: Int64
    var changeNanoseconds: Int64

    init?(atPath path: String, following: Bool) {
        var status = stat()
        let system = SystemCalls.current
        guard (following ? system.stat(path, &status) : system.lstat(path, &status)) == 0 else { return nil }
        identity = FileIdentity(status)
        mode = UInt32(status.st_mode)
        (changeSeconds, changeNanoseconds) = status.changeTime
    }
}

extension stat {
    /// The device, as an unsigned number whatever the platform's `dev_t`: a signed one is taken bit for bit.
    var device: UInt64 {
        UInt64(truncatingIfNeeded: st_dev)
    }

    var modificationTime: (seconds: Int64, nanoseconds: Int64) {
        #if canImport(Darwin)
        (Int64(st_mtimespec.tv_sec), Int64(st_mtimespec.tv_nsec))
        #else
        (Int64(st_mtim.tv_sec), Int64(st_mtim.tv_nsec))
        #endif
    }

    var changeTime: (seconds: Int64, nanoseconds: Int64) {
        #if canImport(Darwin)
        (Int64(st_ctimespec.tv_sec), Int64(st_ctimespec.tv_nsec))
        #else
        (Int64(st_ctim.tv_sec), Int64(st_ctim.tv_nsec))
        #endif
    }

    var isRegularFile: Bool { st_mode & S_IFMT == S_IFREG }
    var isDirectory: Bool { st_mode & S_IFMT == S_IFDIR }
    var isSymbolicLink: Bool { st_mode & S_IFMT == S_IFLNK }
}
