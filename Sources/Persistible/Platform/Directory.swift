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
        guard let directory = try OpenFile.open(path, O_RDONLY | O_DIRECTORY, operation: "open directory", .write)
        else { throw SystemError(phase: .write, operation: "open directory", code: ENOENT) }
        defer { directory.closeQuietly() }
        try directory.flush(operation: SystemError.directoryFlush)
    }

    /// Flushes the directory after a rename or an unlink in it.
    ///
    /// Whatever failed, opening the directory or flushing it, the error names the operation `"fsync directory"`:
    /// the change is in place, and what the caller needs to know is that it may not survive a power loss until a
    /// later durable operation on the file, which flushes it even when it has nothing to write.
    ///
    /// - Parameter openDirectory: The directory, opened before the change, or `nil` to open it now.
    static func flushAfterChange(atPath path: String, openDirectory: OpenFile? = nil) throws {
        do {
            if let openDirectory {
                try openDirectory.flush(operation: SystemError.directoryFlush)
            } else {
                try flush(atPath: path)
            }
        } catch let error as SystemError {
            throw SystemError(phase: .write, operation: SystemError.directoryFlush, code: error.code)
        }
    }

    /// Whether anything is at `path`.
    static func exists(atPath path: String) -> Bool {
        FileSystem.status(path) != nil
    }
}
