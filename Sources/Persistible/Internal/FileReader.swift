import Foundation

/// Reads a whole file and the identity of exactly the version it read.
enum FileReader {
    /// The file's bytes and identity, or `nil` if there is no file.
    ///
    /// - Throws: ``SystemError`` if the file exists but cannot be read, for example because it is a directory.
    static func contents(atPath path: String) throws -> (Data, FileIdentity)? {
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw SystemError.last("open", .read)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SystemError.last("fstat", .read) }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw SystemError(phase: .read, operation: "open", code: (status.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EINVAL)
        }
        // The size is a hint: a file rewritten in place may have grown since fstat.
        var bytes = Data(count: Int(status.st_size))
        var filled = 0
        while true {
            if filled == bytes.count { bytes.count += max(4096, bytes.count / 2) }
            let count = bytes.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { read(descriptor, buffer.baseAddress! + filled, buffer.count - filled) }
            }
            guard count >= 0 else { throw SystemError.last("read", .read) }
            if count == 0 { break }
            filled += count
        }
        bytes.count = filled
        return (bytes, FileIdentity(status))
    }
}
