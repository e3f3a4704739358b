import Foundation

/// Tells which process holds the `flock` on an open lock file, where the system can tell.
enum LockHolder {
    /// The process holding the lock on the file open at `descriptor`, or `nil` if the system cannot tell: only
    /// Linux can, from its lock table.
    static func processID(holding descriptor: Int32) -> Int32? {
        #if os(Linux)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return fromLockTable(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The holder as the kernel's lock table, `/proc/locks`, names it: the one authority on Linux, which also
    /// knows locks taken by other programs.
    ///
    /// A line reads `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF`, with the device's major and minor numbers
    /// in hexadecimal; the lines of waiters carry `->` and are skipped.
    private static func fromLockTable(device: UInt64, inode: UInt64) -> Int32? {
        guard let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        for line in table.split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                UInt64(file[2]) == inode
            else { continue }
            return Int32(fields[4])
        }
        return nil
    }
    #endif
}
