import Foundation

/// Tells which process holds the `flock` on an open lock file, where the system can tell.
enum LockHolder {
    /// The process holding the lock on the file open at `descriptor`, or `nil` if the system cannot tell.
    static func processID(holding descriptor: Int32) -> Int32? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        #if os(Linux)
        if let holder = fromLockTable(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) {
            return holder
        }
        #endif
        return fromContents(of: descriptor)
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

    /// The holder as it wrote itself into the lock file: a writer of this package keeps its process identifier
    /// there while it holds the lock. Other programs write nothing, so this may say nothing.
    private static func fromContents(of descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int32(text).flatMap { $0 > 0 ? $0 : nil }
    }
}
