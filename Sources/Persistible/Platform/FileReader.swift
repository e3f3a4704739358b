import Foundation

/// Reads a whole file and the identity of exactly the version it read.
enum FileReader {
    /// The largest file a load or a save reads: 1 GiB.
    ///
    /// Every value of a file is held in memory, decoded, several times over; a larger file, or a sparse one that
    /// only claims to be larger, would exhaust memory, and an allocation that fails traps instead of throwing.
    static let sizeLimit: Int64 = 1 << 30

    /// The file's bytes and identity, or `nil` if there is no file.
    ///
    /// The file is opened without blocking, so that a FIFO or a device at the path is refused rather than waited on.
    ///
    /// - Throws: ``SystemError`` if the file exists but cannot be read, for example because it is a directory or
    ///   not a regular file; ``FileTooLarge`` if it holds more than ``sizeLimit`` bytes.
    static func contents(atPath path: String) throws -> (Data, FileIdentity)? {
        let system = SystemCalls.current
        let descriptor = retryingOnInterrupt { system.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw SystemError.last("open", .read)
        }
        defer { _ = system.close(descriptor) }
        var status = stat()
        guard system.fstat(descriptor, &status) == 0 else { throw SystemError.last("fstat", .read) }
        guard status.isRegularFile else {
            throw SystemError(phase: .read, operation: "open", code: status.isDirectory ? EISDIR : EINVAL)
        }
        guard Int64(status.st_size) <= sizeLimit else { throw FileTooLarge(size: Int64(status.st_size)) }
        // The size is a hint: a file rewritten in place may have grown since fstat, so the read goes on to the end,
        // and stops once the limit is passed.
        var bytes = Data(count: Int(status.st_size))
        var filled = 0
        while true {
            if filled == bytes.count {
                guard Int64(filled) <= sizeLimit else { throw FileTooLarge(size: Int64(filled)) }
                bytes.count += max(4096, bytes.count / 2)
            }
            let count = bytes.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { system.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled) }
            }
            guard count >= 0 else { throw SystemError.last("read", .read) }
            if count == 0 { break }
            filled += count
        }
        bytes.count = filled
        return (bytes, FileIdentity(status))
    }

    /// A file larger than ``FileReader/sizeLimit``.
    struct FileTooLarge: Error {
        var size: Int64
    }
}
