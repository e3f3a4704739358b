import Foundation

/// What tells one version of a file from another without reading it: device, inode, size and modification time.
///
/// Every save writes a new file and renames it into place, so a save by anyone changes the inode. An editor that
/// rewrites the file in place keeps the inode but changes the size or the modification time, which is kept to the
/// nanosecond.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationSeconds: Int64
    var modificationNanoseconds: Int64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
        modificationSeconds = Int64(status.st_mtimespec.tv_sec)
        modificationNanoseconds = Int64(status.st_mtimespec.tv_nsec)
        #else
        modificationSeconds = Int64(status.st_mtim.tv_sec)
        modificationNanoseconds = Int64(status.st_mtim.tv_nsec)
        #endif
    }

    /// The identity of the file at `path`, following symbolic links; `nil` if there is none.
    static func ofFile(atPath path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileIdentity(status)
    }
}
