import Foundation

extension SystemCalls {
    /// What a failed ``dataSync`` is called in errors: the call that failed last.
    #if canImport(Darwin)
    static let dataSyncName = "fsync"
    #else
    static let dataSyncName = "fdatasync"
    #endif

    /// The system's own calls.
    static let live = SystemCalls(
        open: { path, flags, mode in Foundation.open(path, flags, mode) },
        close: { Foundation.close($0) },
        read: { descriptor, buffer, count in Foundation.read(descriptor, buffer, count) },
        pwrite: { descriptor, bytes, count, offset in Foundation.pwrite(descriptor, bytes, count, offset) },
        ftruncate: { Foundation.ftruncate($0, $1) },
        fstat: { descriptor, status in Foundation.fstat(descriptor, &status) },
        stat: { path, status in statFile(path, &status) },
        lstat: { path, status in Foundation.lstat(path, &status) },
        readlink: { path in
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = Foundation.readlink(path, &buffer, buffer.count - 1)
            guard length >= 0 else { return nil }
            return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        },
        fchown: { Foundation.fchown($0, $1, $2) },
        fchmod: { Foundation.fchmod($0, $1) },
        fullSync: { descriptor in
            #if canImport(Darwin)
            // fsync on Apple platforms leaves the data in the drive's cache; F_FULLFSYNC asks the drive to write it.
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
            #endif
            return Foundation.fsync(descriptor)
        },
        dataSync: { descriptor in
            #if canImport(Darwin)
            // A barrier keeps the drive from writing what follows before the data, without emptying its cache.
            if fcntl(descriptor, F_BARRIERFSYNC) == 0 { return 0 }
            return Foundation.fsync(descriptor)
            #else
            return Foundation.fdatasync(descriptor)
            #endif
        },
        rename: { Foundation.rename($0, $1) },
        renameNoReplace: { from, to in
            #if os(Linux)
            guard let renameat2 = linuxRenameAt2 else {
                errno = ENOSYS
                return -1
            }
            let noReplace: UInt32 = 1
            return renameat2(AT_FDCWD, from, AT_FDCWD, to, noReplace)
            #elseif canImport(Darwin)
            return renamex_np(from, to, UInt32(RENAME_EXCL))
            #else
            errno = ENOSYS
            return -1
            #endif
        },
        link: { Foundation.link($0, $1) },
        unlink: { Foundation.unlink($0) },
        mkdir: { Foundation.mkdir($0, $1) },
        directoryEntries: { path in
            guard let stream = opendir(path) else { return nil }
            defer { closedir(stream) }
            var names: [String] = []
            while let entry = readdir(stream) {
                names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                })
            }
            return names
        },
        flock: { descriptor, operation in lockFile(descriptor, operation) },
        effectiveUser: { geteuid() },
        effectiveGroup: { getegid() },
        ownership: { descriptor, path in
            #if os(Linux)
            // Read without the file's times: see FileOwnership.
            if let ownership = linuxStatxOwnership(descriptor, path) { return ownership }
            if errno != ENOSYS { return nil }
            #endif
            var status = Foundation.stat()
            let result = path.map { statFile($0, &status) } ?? Foundation.fstat(descriptor, &status)
            return result == 0 ? FileOwnership(status) : nil
        },
        isAppendOnly: { descriptor in
            #if os(Linux)
            // FS_IOC_GETFLAGS and FS_APPEND_FL, from <linux/fs.h>, which Glibc does not import.
            let getFlags: UInt = 0x8008_6601
            let appendOnly: Int32 = 0x20
            var flags: Int32 = 0
            guard ioctl(descriptor, getFlags, &flags) == 0 else { return false }
            return flags & appendOnly != 0
            #else
            return false
            #endif
        },
        cloneRange: { source, destination, length in
            #if os(Linux)
            // `struct file_clone_range` and FICLONERANGE, `_IOW(0x94, 13, struct file_clone_range)`, from
            // <linux/fs.h>, which Glibc does not import.
            var range = CloneRange(sourceDescriptor: Int64(source), sourceOffset: 0, length: UInt64(length), offset: 0)
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
        extents: { descriptor, length, limit in FileExtents.read(descriptor, before: length, limit: limit) }
    )
}

// The C functions named like the C structures they take, which a qualified name would take for the structures.
private func statFile(_ path: String, _ status: inout stat) -> Int32 { stat(path, &status) }
private func lockFile(_ descriptor: Int32, _ operation: Int32) -> Int32 { flock(descriptor, operation) }

#if os(Linux)
/// `renameat2(2)`, in the C library since glibc 2.28 but not in the imported headers.
private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
private let linuxRenameAt2: RenameAt2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2").map {
    unsafeBitCast($0, to: RenameAt2.self)
}

/// `struct file_clone_range` from <linux/fs.h>.
private struct CloneRange {
    var sourceDescriptor: Int64
    var sourceOffset: UInt64
    var length: UInt64
    var offset: UInt64
}

/// `statx(2)`, which Glibc has since 2.28 but the imported headers lack.
private typealias Statx = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer) -> Int32
private let statxFunction: Statx? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statx").map {
    unsafeBitCast($0, to: Statx.self)
}

/// The owner, group and mode of the open file, or of `path`, from `statx` asked for those fields alone; `nil` with
/// `errno` `ENOSYS` where the call or a field is missing, so that `stat` reads them.
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
