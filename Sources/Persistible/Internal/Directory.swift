import Foundation

/// Creates the directories a first save needs.
enum Directory {
    /// Creates the directory at `path` and any missing parents; an existing directory is fine.
    ///
    /// With full durability each new directory's parent is flushed, so the new entries survive a power loss
    /// along with the file that is about to be written in them.
    static func create(atPath path: String, durability: Durability) throws {
        if mkdir(path, 0o777) == 0 {
            if durability == .full { try flush(atPath: (path as NSString).deletingLastPathComponent) }
            return
        }
        switch errno {
        case EEXIST:
            return
        case ENOENT:
            let parent = (path as NSString).deletingLastPathComponent
            guard parent != path, !parent.isEmpty else { throw SystemError.last("create directory", .write) }
            try create(atPath: parent, durability: durability)
            guard mkdir(path, 0o777) == 0 || errno == EEXIST else { throw SystemError.last("create directory", .write) }
            if durability == .full { try flush(atPath: parent) }
        default:
            throw SystemError.last("create directory", .write)
        }
    }

    /// Flushes the directory at `path` to the disk, so that the entries just made or renamed in it survive a
    /// power loss.
    static func flush(atPath path: String) throws {
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw SystemError.last("open directory", .write) }
        defer { close(descriptor) }
        try flushToDisk(descriptor, "fsync directory")
    }
}

/// Flushes a file's data, and on Apple platforms the drive's own cache, to the disk.
func flushToDisk(_ descriptor: Int32, _ operation: String) throws {
    #if canImport(Darwin)
    // fsync on Apple platforms leaves the data in the drive's cache; F_FULLFSYNC asks the drive to write it.
    if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
    #endif
    guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else {
        throw SystemError.last(operation, .write)
    }
}
