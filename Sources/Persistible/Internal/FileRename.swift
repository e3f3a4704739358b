import Foundation

/// Gives a file a new name in its directory without ever replacing a file that has that name already.
enum FileRename {
    /// Renames the file at `path` to the first of `candidates` that names no file, and flushes the directory.
    ///
    /// `rename` replaces its destination, so the file is renamed with the system's no-replace rename where there is
    /// one (it needs nothing but write access to the directory); elsewhere, or where the file system refuses it, it
    /// is linked under the new name, which fails if the name is taken, and only then unlinked under the old one.
    ///
    /// - Returns: The name it was given.
    /// - Throws: ``SystemError`` naming the call that failed. After a failed `link` or `unlink` the file keeps its
    ///   name; after `"fsync directory"` it has the new one, which a power loss may undo.
    static func renameWithoutReplacing(
        _ path: String, to candidates: some Sequence<String>, durability: Durability
    ) throws -> String {
        for candidate in candidates {
            switch renameExclusively(path, to: candidate) {
            case 0:
                break
            case EEXIST:
                continue
            default:
                guard link(path, candidate) == 0 else {
                    if errno == EEXIST { continue }
                    throw SystemError.last("link", .write)
                }
                guard unlink(path) == 0 else {
                    let failure = SystemError.last("unlink", .write)
                    unlink(candidate)
                    throw failure
                }
            }
            if durability == .full {
                try Directory.flushAfterChange(atPath: (path as NSString).deletingLastPathComponent)
            }
            return candidate
        }
        throw SystemError(phase: .write, operation: "link", code: EEXIST)
    }

    /// Renames without replacing where the system can: 0 when done, `EEXIST` when the name is taken, any other
    /// value when this way is not available here (then nothing happened).
    private static func renameExclusively(_ path: String, to candidate: String) -> Int32 {
        #if os(Linux)
        // renameat2 is in the C library since glibc 2.28 but not in the imported headers.
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return ENOSYS }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let noReplace: UInt32 = 1
        return renameat2(AT_FDCWD, path, AT_FDCWD, candidate, noReplace) == 0 ? 0 : errno
        #elseif canImport(Darwin)
        return renamex_np(path, candidate, UInt32(RENAME_EXCL)) == 0 ? 0 : errno
        #else
        return ENOSYS
        #endif
    }
}
