import Foundation

/// Creates the directories a first save needs, and flushes directories to the disk.
enum Directory {
    /// Creates the directory at `path` and any missing parents; an existing directory is fine.
    ///
    /// With full durability each new directory's parent is flushed, so the new entries survive a power loss
    /// along with the file that is about to be written in them.
    static func create(atPath path: String, durability: Durability) throws {
        if mkdir(path, 0o777) == 0 {
            if durability == .full { try flushParent(of: path) }
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
            if durability == .full { try flushParent(of: path) }
        default:
            throw SystemError.last("create directory", .write)
        }
    }

    /// Flushes the parent of a new directory. Its failure comes before the file is written, so it is named apart
    /// from the flush that follows a rename.
    private static func flushParent(of path: String) throws {
        do {
            try flush(atPath: (path as NSString).deletingLastPathComponent)
        } catch let error as SystemError {
            throw SystemError(phase: .write, operation: "flush new directory", code: error.code)
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

    /// Flushes the directory after a rename or an unlink in it.
    ///
    /// Whatever failed, opening the directory or flushing it, the error names the operation `"fsync directory"`:
    /// the change is in place, and what the caller needs to know is that it may not survive a power loss until a
    /// later durable operation on the file, which flushes it even when it has nothing to write.
    ///
    /// - Parameter descriptor: The directory, opened before the change, or `nil` to open it now.
    static func flushAfterChange(atPath path: String, descriptor: Int32? = nil) throws {
        do {
            if let descriptor {
                try flushToDisk(descriptor, "fsync directory")
            } else {
                try flush(atPath: path)
            }
        } catch let error as SystemError {
            throw SystemError(phase: .write, operation: "fsync directory", code: error.code)
        }
    }
}

/// Writes a file's data to the disk ahead of whatever is done to the file next, without waiting for the rest of the
/// file system or, on Apple platforms, for the drive's own cache: what a save without full durability needs so that
/// its rename never reaches the disk before its bytes.
func flushDataBeforeRename(_ descriptor: Int32) throws {
    #if canImport(Darwin)
    // A barrier keeps the drive from writing the rename before the data, without emptying its cache.
    if fcntl(descriptor, F_BARRIERFSYNC) == 0 { return }
    guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else { throw SystemError.last("fsync", .write) }
    #else
    guard retryingOnInterrupt({ fdatasync(descriptor) }) == 0 else { throw SystemError.last("fdatasync", .write) }
    #endif
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
