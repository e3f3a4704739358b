import Foundation

/// Makes a new file that shares the blocks of an existing one, in constant time, where the file system can.
///
/// XFS with reflink, btrfs and APFS can; ext4 and tmpfs cannot, and say so with an error such as `EOPNOTSUPP`.
/// Such a device is remembered for the life of the process, so that trying costs one failed call per device, not
/// one per save.
enum FileClone {
    /// The devices whose file system refused to clone.
    private static let refusingDevices = Locked<Set<UInt64>>([])

    /// Whether a clone is worth trying on `device`.
    static func mayClone(onDevice device: UInt64) -> Bool {
        !refusingDevices.withLock { $0.contains(device) }
    }

    /// Creates the file at `path`, which must not exist, as a clone of the open file `source`, and opens it for
    /// writing.
    ///
    /// - Parameters:
    ///   - source: A descriptor open for reading, of a regular file on `device`.
    ///   - path: Where the clone goes: on the same file system, beside the source.
    ///   - device: The source's device, remembered if its file system refuses to clone.
    /// - Returns: The clone's descriptor, with the source's bytes and a mode of 0600 or the source's, or `nil` if
    ///   the clone could not be made, in which case nothing is left at `path`.
    static func create(atPath path: String, cloning source: Int32, onDevice device: UInt64) -> Int32? {
        #if canImport(Darwin)
        // The clone gets the source's mode; the caller sets mode and owner afterwards as for any temporary.
        guard fclonefileat(source, AT_FDCWD, path, UInt32(CLONE_NOFOLLOW | CLONE_NOOWNERCOPY)) == 0 else {
            noteFailure(errno, onDevice: device)
            return nil
        }
        let descriptor = retryingOnInterrupt { open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else {
            unlink(path)
            return nil
        }
        return descriptor
        #else
        let descriptor = retryingOnInterrupt { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        guard descriptor >= 0 else { return nil }
        guard ioctl(descriptor, cloneRequest, source) == 0 else {
            noteFailure(errno, onDevice: device)
            close(descriptor)
            unlink(path)
            return nil
        }
        return descriptor
        #endif
    }

    #if !canImport(Darwin)
    /// `FICLONE`, `_IOW(0x94, 9, int)`, which Glibc does not import.
    private static let cloneRequest = UInt(0x4004_9409)
    #endif

    /// Remembers `device` when `code` says its file system cannot clone, as opposed to failing this once (a full
    /// disk, an I/O error), after which the next save tries again.
    private static func noteFailure(_ code: Int32, onDevice device: UInt64) {
        let unsupported: Set<Int32> = [EOPNOTSUPP, ENOTSUP, EXDEV, EINVAL, ENOTTY, ENOSYS]
        if unsupported.contains(code) {
            _ = refusingDevices.withLock { $0.insert(device) }
        }
    }
}
