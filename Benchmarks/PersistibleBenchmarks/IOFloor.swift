import Foundation

// The floors the package's writes are measured against: the least each kind of write costs in system calls, with
// nothing of the package in it. `IOFloor` rewrites a whole file atomically, `InPlaceFloor` writes an append's new
// end onto the file itself, `CloneSequence` makes an atomic append by cloning.

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

    /// `fdatasync`, which Apple's SDKs do not declare: `fsync` there.
    static func flushData(_ descriptor: Int32) -> Int32 {
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

/// Writes an append's new end onto the file itself and flushes it: what an append costs without atomicity.
final class InPlaceFloor {
    private let descriptor: Int32
    private var size: Int

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOFloor.Failure(operation: "open", errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw IOFloor.Failure(operation: "fstat", errno: errno) }
        size = Int(status.st_size)
    }

    /// Replaces the closing "\n]" with ",", the record as the package indents it, and a new "\n]".
    func append(_ record: Record) throws {
        let tail = try Self.tail(appending: record)
        let offset = size - 2
        let written = tail.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
        guard written == tail.count else { throw IOFloor.Failure(operation: "pwrite", errno: errno) }
        guard IOFloor.flushData(descriptor) == 0 else { throw IOFloor.Failure(operation: "fdatasync", errno: errno) }
        size = offset + tail.count
    }

    /// What replaces a file's closing "\n]" to append `record` to it: ",", the record as the package indents it,
    /// and a new "\n]".
    static func tail(appending record: Record) throws -> Data {
        var tail = Data(",".utf8)
        tail.append(try Record.archiveEncoder.encode([record]).dropFirst())
        return tail
    }

    func close() {
        _ = Foundation.close(descriptor)
    }
}

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
