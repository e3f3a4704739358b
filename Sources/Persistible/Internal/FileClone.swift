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

    #if canImport(Darwin)
    /// Creates the file at `path` as a clone of the whole open file `source`, and opens it for writing. The caller
    /// holds the lock that makes `path` its own: a file already there was left by a writer that died, and is
    /// replaced.
    ///
    /// - Parameters:
    ///   - source: A descriptor open for reading, of a regular file on `device`.
    ///   - device: The source's device, remembered if its file system refuses to clone.
    /// - Returns: The clone's descriptor, with the source's mode (the caller sets mode and owner afterwards, as for
    ///   any temporary), and the source's length; `nil` if the clone could not be made, in which case nothing is
    ///   left at `path`.
    static func create(atPath path: String, cloning source: Int32, onDevice device: UInt64) -> (
        descriptor: Int32, length: Int
    )? {
        var status = stat()
        guard fstat(source, &status) == 0 else { return nil }
        var cloned = fclonefileat(source, AT_FDCWD, path, UInt32(CLONE_NOFOLLOW | CLONE_NOOWNERCOPY)) == 0
        if !cloned, errno == EEXIST, unlink(path) == 0 {
            cloned = fclonefileat(source, AT_FDCWD, path, UInt32(CLONE_NOFOLLOW | CLONE_NOOWNERCOPY)) == 0
        }
        guard cloned else {
            noteFailure(errno, onDevice: device)
            return nil
        }
        let descriptor = retryingOnInterrupt { open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else {
            unlink(path)
            return nil
        }
        return (descriptor, Int(status.st_size))
    }
    #else
    /// Makes the new, empty file open at `descriptor` share the blocks that hold the first `length` bytes of the
    /// open file `source`.
    ///
    /// Only whole blocks are shared (`FICLONERANGE`): the block that holds the first changed byte is left for the
    /// caller to write whole, with the new end, rather than shared and then copied on the first write, which would
    /// read it back from the disk; so are the small extents just before it (see
    /// ``sharedLength(of:keeping:total:blockSize:)``).
    ///
    /// - Parameters:
    ///   - source: A descriptor open for reading, of a regular file on `device`.
    ///   - descriptor: The new file, open for writing, on the same file system.
    ///   - length: How many bytes at the start of `source` the new file keeps.
    ///   - total: How long the new file will be.
    ///   - blockSize: The size of the source's blocks, or a multiple of it, as `st_blksize` gives it.
    ///   - device: The source's device, remembered if its file system refuses to clone.
    /// - Returns: How many bytes of the source the new file now holds, at most `length`; `nil` if not a whole
    ///   block is to be shared or the clone could not be made: the caller then writes every byte.
    static func clone(
        _ source: Int32, into descriptor: Int32, length: Int, total: Int, blockSize: Int, onDevice device: UInt64
    ) -> Int? {
        guard blockSize > 0 else { return nil }
        let shared = sharedLength(of: source, keeping: length, total: total, blockSize: blockSize)
        guard shared > 0 else { return nil }
        var range = CloneRange(sourceDescriptor: Int64(source), sourceOffset: 0, length: UInt64(shared), offset: 0)
        guard ioctl(descriptor, cloneRangeRequest, &range) == 0 else {
            noteFailure(errno, onDevice: device)
            return nil
        }
        return shared
    }
    #endif

    #if !canImport(Darwin)
    /// How many bytes at the start of `source` a new file that keeps its first `length` bytes and is `total` bytes
    /// long shares with it: the whole blocks before `length`, less the small extents at their end, which are
    /// written again with the rest. 0 when nothing is to be shared.
    ///
    /// The blocks a save writes go to a new place on the disk, so a file grown by appends would otherwise be held
    /// in about one extent per block it grew by, and a clone costs the file system a step per extent it shares:
    /// each append would be slower than the last. Instead, the extent just before the blocks to be written is
    /// written again with them while it is shorter than all they add up to. As in a binary counter, the extents
    /// then shrink at least by half from the file's start to its end, so there are at most about as many as
    /// doublings of the file's size, and each byte is written again at most once per doubling. The price is that
    /// the append that doubles what was appended since the file was last written whole writes it whole again.
    ///
    /// A file held in more than 128 extents of less than 64 KiB on average, made some other way, is not shared at
    /// all: written whole, it is whole again. One whose extents are larger, as on a file system that compresses in
    /// extents of 128 KiB, is shared as it is: writing it whole would not make it whole.
    static func sharedLength(of source: Int32, keeping length: Int, total: Int, blockSize: Int) -> Int {
        var shared = length / blockSize * blockSize
        guard shared > 0 else { return 0 }
        switch FileExtents.map(of: source, before: shared, limit: extentLimit) {
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
            // Extents begin at the file system's blocks; a clone must begin and end at whole blocks of the size
            // the caller gave.
            return shared / blockSize * blockSize
        }
    }

    /// More extents than a file kept by ``sharedLength(of:keeping:total:blockSize:)`` has, below an exabyte.
    private static let extentLimit = 128

    /// The average extent below which a file in more than ``extentLimit`` extents is written whole.
    private static let smallExtent = 64 << 10

    /// `struct file_clone_range` from `<linux/fs.h>`, which Glibc does not import.
    private struct CloneRange {
        var sourceDescriptor: Int64
        var sourceOffset: UInt64
        var length: UInt64
        var offset: UInt64
    }

    /// `FICLONERANGE`, `_IOW(0x94, 13, struct file_clone_range)`.
    private static let cloneRangeRequest = UInt(0x4020_940D)
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
