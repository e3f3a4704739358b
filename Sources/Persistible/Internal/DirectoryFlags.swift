import Foundation

/// Reads a directory's file attributes, those `chattr` sets, where the system has them.
enum DirectoryFlags {
    /// Whether the directory open at `descriptor` is append-only (`chattr +a`): entries can be made in it, but none
    /// removed or replaced, so a temporary made there could never be renamed over the file nor removed again.
    ///
    /// `false` wherever the system cannot tell: on other systems and on file systems without attributes.
    static func isAppendOnly(_ descriptor: Int32) -> Bool {
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
    }
}
