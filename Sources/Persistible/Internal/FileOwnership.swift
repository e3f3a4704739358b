import Foundation

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
        #if os(Linux)
        if let ownership = statx(descriptor, "", flags: emptyPath) { return ownership }
        if errno != ENOSYS { return nil }
        #endif
        var status = stat()
        return fstat(descriptor, &status) == 0 ? FileOwnership(status) : nil
    }

    /// The ownership of the file at `path`, following symbolic links; `nil` with `errno` set if it cannot be read.
    static func of(path: String) -> FileOwnership? {
        #if os(Linux)
        if let ownership = statx(AT_FDCWD, path, flags: 0) { return ownership }
        if errno != ENOSYS { return nil }
        #endif
        var status = stat()
        return stat(path, &status) == 0 ? FileOwnership(status) : nil
    }

    #if os(Linux)
    /// `statx(2)`, which Glibc has since 2.28 but the imported headers lack. `ENOSYS` when it is not there.
    private typealias Statx = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer) ->
        Int32
    private static let statxFunction: Statx? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statx").map {
        unsafeBitCast($0, to: Statx.self)
    }

    /// `AT_EMPTY_PATH`: the descriptor itself, not a path relative to it.
    private static let emptyPath: Int32 = 0x1000

    private static func statx(_ directory: Int32, _ path: String, flags: Int32) -> FileOwnership? {
        guard let statxFunction else {
            errno = ENOSYS
            return nil
        }
        // STATX_TYPE | STATX_MODE | STATX_UID | STATX_GID, and no times.
        let wanted: UInt32 = 0x1 | 0x2 | 0x8 | 0x10
        // `struct statx` is 256 bytes: stx_mask at 0, stx_uid at 20, stx_gid at 24, stx_mode (16 bits) at 28.
        return withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            guard statxFunction(directory, path, flags, wanted, raw.baseAddress!) == 0 else { return nil }
            guard raw.load(fromByteOffset: 0, as: UInt32.self) & wanted == wanted else {
                // Fields the file system did not fill: `stat` reads them.
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
}
