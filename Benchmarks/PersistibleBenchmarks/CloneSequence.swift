import Foundation

/// The least an atomic, durable append can cost on a file system that clones: the system calls of the clone path
/// and nothing else.
///
/// Each append makes a temporary that shares the whole blocks before the file's new end with the file
/// (`FICLONERANGE`), sets its length, writes the rest, flushes it, renames it over the file and flushes the
/// directory. No lock, no encoding, no checks: what the package's append costs beyond this is the package's own.
final class CloneSequence {
    private let path: String
    private let directory: String
    private let temporary: String
    private var bytes: Data

    /// Takes over the file at `path`, which must hold `bytes`; `nil` where its file system cannot clone.
    init?(path: String, holding bytes: Data) throws {
        self.path = path
        directory = (path as NSString).deletingLastPathComponent
        temporary = "\(directory)/.\((path as NSString).lastPathComponent).clone-\(getpid()).tmp"
        self.bytes = bytes
        // A clone of the first block tells whether the file system can.
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw IOFloor.Failure(operation: "open", errno: errno) }
        defer { close(source) }
        let probe = "\(temporary).probe"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw IOFloor.Failure(operation: "open", errno: errno) }
        defer {
            close(descriptor)
            unlink(probe)
        }
        var range = Self.Range(source: Int64(source), sourceOffset: 0, length: 4096, offset: 0)
        guard ioctl(descriptor, Self.cloneRange, &range) == 0 else { return nil }
    }

    /// Appends `tail` in place of the file's last `replacing` bytes.
    func append(_ tail: Data, replacing: Int) throws {
        let unchanged = bytes.count - replacing
        bytes.removeLast(replacing)
        bytes.append(tail)
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw IOFloor.Failure(operation: "open directory", errno: errno) }
        defer { close(directoryDescriptor) }
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw IOFloor.Failure(operation: "open", errno: errno) }
        defer { close(source) }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw IOFloor.Failure(operation: "open temporary", errno: errno) }
        let shared = unchanged / 4096 * 4096
        var range = Self.Range(source: Int64(source), sourceOffset: 0, length: UInt64(shared), offset: 0)
        guard shared == 0 || ioctl(descriptor, Self.cloneRange, &range) == 0 else {
            let code = errno
            close(descriptor)
            unlink(temporary)
            throw IOFloor.Failure(operation: "FICLONERANGE", errno: code)
        }
        // The length is set first, as the package sets it, so that the write stays within the file.
        guard ftruncate(descriptor, off_t(bytes.count)) == 0 else {
            let code = errno
            close(descriptor)
            unlink(temporary)
            throw IOFloor.Failure(operation: "ftruncate", errno: code)
        }
        let written = bytes.withUnsafeBytes { raw in
            pwrite(descriptor, raw.baseAddress! + shared, raw.count - shared, off_t(shared))
        }
        guard written == bytes.count - shared, fsync(descriptor) == 0 else {
            let code = errno
            close(descriptor)
            unlink(temporary)
            throw IOFloor.Failure(operation: "write and fsync", errno: code)
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw IOFloor.Failure(operation: "rename", errno: errno) }
        guard fsync(directoryDescriptor) == 0 else { throw IOFloor.Failure(operation: "fsync directory", errno: errno) }
    }

    /// `struct file_clone_range` from `<linux/fs.h>`.
    private struct Range {
        var source: Int64
        var sourceOffset: UInt64
        var length: UInt64
        var offset: UInt64
    }

    /// `FICLONERANGE`, `_IOW(0x94, 13, struct file_clone_range)`.
    private static let cloneRange = UInt(0x4020_940D)
}
