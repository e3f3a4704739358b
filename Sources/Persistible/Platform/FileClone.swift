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

    /// Creates the file at `path`, open for writing, sharing the blocks that hold as much of the first `length`
    /// bytes of `source` as is worth sharing.
    ///
    /// Apple's file systems clone a whole file into a new one (`fclonefileat`), Linux's a range of blocks into an
    /// open file (`FICLONERANGE`): either way the caller then writes the bytes from the one returned on.
    ///
    /// - Parameters:
    ///   - source: A descriptor open for reading, of a regular file, and its status.
    ///   - length: How many bytes at the start of `source` the new file keeps.
    ///   - total: How long the new file will be.
    ///   - create: Creates the file at `path` empty, where no clone makes it.
    /// - Returns: The new file's descriptor and, if it shares any, how many of `source`'s bytes are shared and how
    ///   long the new file now is; with `nil` the caller writes every byte.
    static func create(
        atPath path: String, sharing source: (file: OpenFile, status: stat), keeping length: Int, total: Int,
        orCreate create: () throws -> OpenFile
    ) throws -> (file: OpenFile, clone: (shared: Int, length: Int)?) {
        let system = SystemCalls.current
        let device = source.status.device
        #if canImport(Darwin)
        var cloned = system.cloneFile(source.file.descriptor, path) == 0
        if !cloned, errno == EEXIST, system.unlink(path) == 0 {
            cloned = system.cloneFile(source.file.descriptor, path) == 0
        }
        guard cloned else {
            noteFailure(errno, onDevice: device)
            return (try create(), nil)
        }
        guard let file = try? OpenFile.open(path, O_WRONLY | O_NOFOLLOW, .write) else {
            _ = system.unlink(path)
            return (try create(), nil)
        }
        let clonedLength = Int(source.status.st_size)
        return (file, (min(length, clonedLength), clonedLength))
        #else
        let file = try create()
        let blockSize = Int(source.status.st_blksize)
        guard blockSize > 0 else { return (file, nil) }
        let shared = sharedLength(of: source.file.descriptor, keeping: length, total: total, blockSize: blockSize)
        guard shared > 0 else { return (file, nil) }
        guard system.cloneRange(source.file.descriptor, file.descriptor, shared) == 0 else {
            noteFailure(errno, onDevice: device)
            return (file, nil)
        }
        return (file, (shared, shared))
        #endif
    }

    /// How many bytes at the start of `source` a new file that keeps its first `length` bytes and is `total` bytes
    /// long shares with it: the whole blocks before `length`, less the small extents at their end, which are
    /// written again with the rest. 0 when nothing is to be shared.
    ///
    /// Only whole blocks are shared: the block that holds the first changed byte is left to be written whole, with
    /// the new end, rather than shared and then copied on the first write, which would read it back from the disk.
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
        switch SystemCalls.current.extents(source, shared, extentLimit) {
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

    /// Remembers `device` when `code` says its file system cannot clone, as opposed to failing this once (a full
    /// disk, an I/O error), after which the next save tries again.
    private static func noteFailure(_ code: Int32, onDevice device: UInt64) {
        let unsupported: Set<Int32> = [EOPNOTSUPP, ENOTSUP, EXDEV, EINVAL, ENOTTY, ENOSYS]
        if unsupported.contains(code) {
            _ = refusingDevices.withLock { $0.insert(device) }
        }
    }
}

/// Where a file's bytes lie: the extents, the runs of contiguous blocks, that hold them, as the file system reports
/// them (Linux's `FIEMAP`).
///
/// A clone costs the file system a step per extent it shares, so a file whose appends each left a block of their own
/// would make every later clone slower. ``FileClone`` reads the extents to avoid that.
enum FileExtents {
    /// What the file system says of the extents that hold a file's first bytes.
    enum Map: Equatable {
        /// The extents, as ranges of offsets in the file, in order, the last one cut where the bytes asked about
        /// end.
        case extents([Range<Int>])
        /// More extents hold those bytes than were asked for: the first ones, as `extents` gives them.
        case tooMany([Range<Int>])
        /// The file system cannot say.
        case unknown
    }

    /// The extents that hold the bytes of the open file `descriptor` before `length`, at most `limit` of them: the
    /// system's answer, behind ``SystemCalls/extents``.
    static func read(_ descriptor: Int32, before length: Int, limit: Int) -> Map {
        #if os(Linux)
        guard length > 0, limit > 0 else { return .extents([]) }
        // FS_IOC_FIEMAP, `_IOWR('f', 11, struct fiemap)`, from <linux/fs.h>, which Glibc does not import; then
        // struct fiemap (32 bytes), and room for `limit` struct fiemap_extent (56 bytes each).
        let mapRequest = UInt(0xC020_660B)
        let headerSize = 32, extentSize = 56
        // FIEMAP_EXTENT_LAST: the extent is the last of the range asked about.
        let lastExtentFlag: UInt32 = 0x1
        return withUnsafeTemporaryAllocation(
            byteCount: headerSize + extentSize * limit, alignment: MemoryLayout<UInt64>.alignment
        ) { raw -> Map in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            raw.storeBytes(of: UInt64(0), toByteOffset: 0, as: UInt64.self)  // fm_start
            raw.storeBytes(of: UInt64(length), toByteOffset: 8, as: UInt64.self)  // fm_length
            raw.storeBytes(of: UInt32(limit), toByteOffset: 24, as: UInt32.self)  // fm_extent_count
            guard ioctl(descriptor, mapRequest, raw.baseAddress!) == 0 else { return .unknown }
            let mapped = min(Int(raw.load(fromByteOffset: 20, as: UInt32.self)), limit)  // fm_mapped_extents
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(mapped)
            for index in 0..<mapped {
                let extent = headerSize + extentSize * index
                let start = Int(clamping: raw.load(fromByteOffset: extent, as: UInt64.self))  // fe_logical
                let count = Int(clamping: raw.load(fromByteOffset: extent + 16, as: UInt64.self))  // fe_length
                guard start < length else { break }
                ranges.append(start..<(start + min(count, length - start)))
            }
            // A full buffer that stops short of `length` leaves extents unreported.
            if mapped == limit, let last = ranges.last, last.upperBound < length {
                let flags = raw.load(fromByteOffset: headerSize + extentSize * (mapped - 1) + 40, as: UInt32.self)
                if flags & lastExtentFlag == 0 { return .tooMany(ranges) }
            }
            return .extents(ranges)
        }
        #else
        return .unknown
        #endif
    }
}
