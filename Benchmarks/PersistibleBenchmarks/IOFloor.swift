import Foundation

/// The least that any atomic save of a file must do: write all its bytes to a temporary file beside it, flush them
/// and rename it over the file, flushing the directory too when the save is to be durable.
///
/// A save that is not durable still flushes the temporary's data before the rename: without it a power loss can
/// keep the rename and lose the bytes, destroying the version that was on the disk.
///
/// Rewriting a file's current bytes this way costs what the disk and the kernel charge for an atomic replacement
/// and nothing more: no decoding, no encoding, no lock. An append by the package can approach it but never beat it.
enum IOFloor {
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var errno: Int32
        var description: String { "I/O floor: \(operation) failed: \(String(cString: strerror(errno)))" }
    }

    static func rewrite(_ bytes: Data, atPath path: String, durable: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).floor-\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(operation: "open", errno: errno) }
        do {
            try writeAll(bytes, to: descriptor)
            if durable {
                guard fsync(descriptor) == 0 else { throw Failure(operation: "fsync", errno: errno) }
            } else {
                guard flushData(descriptor) == 0 else { throw Failure(operation: "fdatasync", errno: errno) }
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard close(descriptor) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(operation: "close", errno: code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(operation: "rename", errno: code)
        }
        if durable {
            // Without this the rename, and so the new contents, could be lost with the power.
            let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard directoryDescriptor >= 0 else { throw Failure(operation: "open directory", errno: errno) }
            defer { close(directoryDescriptor) }
            guard fsync(directoryDescriptor) == 0 else { throw Failure(operation: "fsync directory", errno: errno) }
        }
    }

    private static func flushData(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        fsync(descriptor)
        #else
        fdatasync(descriptor)
        #endif
    }

    private static func writeAll(_ bytes: Data, to descriptor: Int32) throws {
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var next = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = write(descriptor, next, remaining)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw Failure(operation: "write", errno: written == 0 ? EIO : errno) }
                next += written
                remaining -= written
            }
        }
    }
}
