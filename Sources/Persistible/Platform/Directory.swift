import Foundation

/// Creates the directories a first save needs, and flushes directories to the disk.
enum Directory {
    /// Creates the directory at `path` and any missing parents; an existing directory is fine.
    ///
    /// With full durability each new directory's parent is flushed, so the new entries survive a power loss
    /// along with the file that is about to be written in them.
    static func create(atPath path: String, durability: Durability) throws {
        let system = SystemCalls.current
        if system.mkdir(path, 0o777) == 0 {
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
            guard system.mkdir(path, 0o777) == 0 || errno == EEXIST else {
                throw SystemError.last("create directory", .write)
            }
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
        let system = SystemCalls.current
        let descriptor = retryingOnInterrupt { system.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) }
        guard descriptor >= 0 else { throw SystemError.last("open directory", .write) }
        defer { _ = system.close(descriptor) }
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

    /// Whether anything is at `path`.
    static func exists(atPath path: String) -> Bool {
        var status = stat()
        return SystemCalls.current.stat(path, &status) == 0
    }
}

/// Writes a file's data to the disk ahead of whatever is done to the file next: what a save without full
/// durability needs so that its rename never reaches the disk before its bytes.
func flushDataBeforeRename(_ descriptor: Int32) throws {
    let system = SystemCalls.current
    guard retryingOnInterrupt({ system.dataSync(descriptor) }) == 0 else {
        throw SystemError.last("fdatasync", .write)
    }
}

/// Flushes a file's data, and on Apple platforms the drive's own cache, to the disk.
func flushToDisk(_ descriptor: Int32, _ operation: String) throws {
    let system = SystemCalls.current
    guard retryingOnInterrupt({ system.fullSync(descriptor) }) == 0 else {
        throw SystemError.last(operation, .write)
    }
}
