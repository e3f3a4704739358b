import Foundation

/// Replaces a file's contents all at once: readers and crashes see the old contents or the new, never a mixture.
///
/// A write creates a new temporary file beside the target, writes every byte to it, gives it the target's mode and
/// owner, flushes it, renames it over the target and flushes the directory, so that the rename itself survives a
/// power loss. On any failure the temporary is removed and the target is untouched; there is no fallback to a
/// write in place. A symbolic link at the target is followed, so the link stays a link and its target is replaced.
///
/// Writers of one file must hold its ``FileLock``: the temporaries left by a crashed writer are recognized and
/// removed by the next writer, which may only assume they are abandoned because it holds the lock.
struct AtomicFile {
    /// The file to replace, with symbolic links already resolved.
    let path: String

    /// The file at `path`, or the file a symbolic link there points to, however many links deep.
    init(resolving path: String) throws {
        self.path = try Self.resolveSymbolicLinks(path)
    }

    private var directory: String {
        (path as NSString).deletingLastPathComponent
    }

    private var name: String {
        (path as NSString).lastPathComponent
    }

    // The temporaries' names: ".<name>.persistible-<pid>-<random>.tmp". The process identifier tells a later writer
    // whether the writer that made it is still alive.
    private var temporaryPrefix: String { ".\(name).persistible-" }
    private static let temporarySuffix = ".tmp"

    /// Replaces the file's contents with `bytes`.
    ///
    /// - Returns: The identity of the new file.
    /// - Throws: ``SystemError`` naming the call that failed; the file is then as it was.
    @discardableResult
    func write(_ bytes: Data, durability: Durability) throws -> FileIdentity {
        var existing = stat()
        let replacing = stat(path, &existing) == 0
        let unique = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let temporary = "\(directory)/\(temporaryPrefix)\(getpid())-\(unique)\(Self.temporarySuffix)"
        // A new file gets the usual 0666 less the umask; a replacement gets the old file's mode below.
        let descriptor = retryingOnInterrupt {
            open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, replacing ? 0o600 : 0o666)
        }
        guard descriptor >= 0 else { throw SystemError.last("create temporary file", .write) }
        var isOpen = true
        do {
            if replacing {
                try Self.copyOwnership(from: existing, to: descriptor)
            }
            try Self.writeAll(bytes, to: descriptor)
            if durability == .full {
                try flushToDisk(descriptor, "fsync")
            }
            var written = stat()
            guard fstat(descriptor, &written) == 0 else { throw SystemError.last("fstat", .write) }
            isOpen = false
            guard close(descriptor) == 0 else { throw SystemError.last("close", .write) }
            guard rename(temporary, path) == 0 else { throw SystemError.last("rename", .write) }
            if durability == .full {
                try Directory.flush(atPath: directory)
            }
            return FileIdentity(written)
        } catch {
            if isOpen { close(descriptor) }
            unlink(temporary)
            throw error
        }
    }

    /// Removes the file, following a symbolic link to its target; a missing file is not an error.
    func remove(durability: Durability) throws {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return }
            throw SystemError.last("unlink", .write)
        }
        if durability == .full {
            try Directory.flush(atPath: directory)
        }
    }

    /// Removes the temporaries that writers of this file left behind when they died.
    ///
    /// Call it while holding the file's lock. A temporary is abandoned when the process that made it is gone, or is
    /// this one, or when it is over an hour old (a process identifier can be reused, and one from another PID
    /// namespace sharing the directory means nothing here). Failures are ignored: a leftover temporary costs disk
    /// space, not data.
    func removeAbandonedTemporaries() {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        let prefix = temporaryPrefix
        let ownProcess = getpid()
        let hourAgo = time(nil) - 3600
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            guard entryName.hasPrefix(prefix), entryName.hasSuffix(Self.temporarySuffix) else { continue }
            let middle = entryName.dropFirst(prefix.count).dropLast(Self.temporarySuffix.count)
            let candidate = directory + "/" + entryName
            var status = stat()
            guard lstat(candidate, &status) == 0 else { continue }
            let owner = middle.split(separator: "-").first.flatMap { pid_t($0) }
            let ownerIsGone = owner.map { $0 == ownProcess || (kill($0, 0) == -1 && errno == ESRCH) } ?? true
            if ownerIsGone || status.st_mtim_seconds < hourAgo {
                unlink(candidate)
            }
        }
    }

    // MARK: - Steps

    private static func copyOwnership(from existing: stat, to descriptor: Int32) throws {
        // Only root may give a file to another owner; others keep their own, as any new file would.
        if geteuid() == 0, existing.st_uid != 0 || existing.st_gid != 0 {
            guard fchown(descriptor, existing.st_uid, existing.st_gid) == 0 else {
                throw SystemError.last("fchown", .write)
            }
        }
        guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else { throw SystemError.last("fchmod", .write) }
    }

    private static func writeAll(_ bytes: Data, to descriptor: Int32) throws {
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var next = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = retryingOnInterrupt { Foundation.write(descriptor, next, remaining) }
                guard written > 0 else {
                    throw written == 0 ? SystemError(phase: .write, operation: "write", code: EIO)
                        : SystemError.last("write", .write)
                }
                next += written
                remaining -= written
            }
        }
    }

    // MARK: - Symbolic links

    private static func resolveSymbolicLinks(_ start: String) throws -> String {
        var path = start
        // The limit matches the kernel's: a longer chain is a loop, and opening it would fail with ELOOP anyway.
        for _ in 0..<40 {
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK else { return path }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(path, &buffer, buffer.count - 1)
            guard length >= 0 else { throw SystemError.last("readlink", .write) }
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            path = target.hasPrefix("/")
                ? target : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        }
        throw SystemError(phase: .write, operation: "resolve symbolic link", code: ELOOP)
    }
}

extension stat {
    fileprivate var st_mtim_seconds: Int {
        #if canImport(Darwin)
        Int(st_mtimespec.tv_sec)
        #else
        Int(st_mtim.tv_sec)
        #endif
    }
}
