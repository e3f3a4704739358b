import Foundation

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

    /// The extents that hold the bytes of the open file `descriptor` before `length`, at most `limit` of them.
    static func map(of descriptor: Int32, before length: Int, limit: Int) -> Map {
        #if os(Linux)
        guard length > 0, limit > 0 else { return .extents([]) }
        // struct fiemap (32 bytes), then room for `limit` struct fiemap_extent (56 bytes each).
        let headerSize = 32, extentSize = 56
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

    #if os(Linux)
    /// `FS_IOC_FIEMAP`, `_IOWR('f', 11, struct fiemap)`, from `<linux/fs.h>`, which Glibc does not import.
    private static let mapRequest = UInt(0xC020_660B)

    /// `FIEMAP_EXTENT_LAST`: the extent is the last of the range asked about.
    private static let lastExtentFlag: UInt32 = 0x1
    #endif
}
