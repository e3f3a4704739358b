import Foundation

/// Creates the directories a first save needs.
enum Directory {
    /// Creates the directory at `path` and any missing parents; an existing directory is fine.
    ///
    /// With full durability each new directory's parent is flushed, so the new entries survive a power loss
    /// along with the file that is about to be written in them.
    static func create(atPath path: String, durability: Durability) throws {
        if mkdir(path, 0o777) == 0 {
            if durability == .full { try synchronize(parentOf: path) }
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
            if durability == .full { try synchronize(parentOf: path) }
        default:
            throw SystemError.last("create directory", .write)
        }
    }

    private static func synchronize(parentOf path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        let descriptor = retryingOnInterrupt { open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw SystemError.last("open directory", .write) }
        defer { close(descriptor) }
        guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else { throw SystemError.last("fsync directory", .write) }
    }
}
