import Foundation

/// Replaces a file's contents all at once: readers and crashes see the old contents or the new, never a mixture.
///
/// A write creates a new temporary file beside the target, writes every byte to it, gives it the target's mode and
/// owner, flushes it, renames it over the target and flushes the directory, so that the rename itself survives a
/// power loss. When the new contents begin with the target's, and the file system shares blocks between files,
/// the temporary starts as a clone of the target and only the rest is written. On any failure the temporary is
/// removed and the target is untouched; there is no fallback to a write in place. A symbolic link at the target is
/// followed, so the link stays a link and its target is replaced.
///
/// Writers of one file must hold its ``FileLock``. The file has one temporary, `.<name>.persistible.tmp`: only the
/// holder of the lock writes it, so whatever is found there is what a writer left when it died, and is replaced.
struct AtomicFile {
    /// The file to replace, with symbolic links already resolved.
    let path: String
    /// The directory that holds it, and its name there: worked out once, since every save needs them several
    /// times.
    let directory: String
    let name: String
    /// What was at `path` when the links were resolved, or `nil` if nothing was.
    let kindWhenResolved: Kind?
    /// The ownership of `directory` as the lock read it, if it did: it spares a save reading it again.
    var directoryOwnership: FileOwnership?
    /// The file's identity as read once the lock was taken, `nil` if there was no file: set by the holder of the
    /// lock, and right until it writes, since no other writer can change the file meanwhile.
    var identityUnderLock: FileIdentity?
    /// Whether this operation has replaced or removed the file; one that has not flushes it as it found it.
    private let changes = Changes()

    private final class Changes {
        var madeAny = false
    }

    /// Whether a write or a removal has gone through this file in this operation.
    var hasChanged: Bool { changes.madeAny }

    /// The file at `path`, or the file a symbolic link there points to, however many links deep.
    init(resolving path: String) throws {
        (self.path, kindWhenResolved) = try Self.resolveSymbolicLinks(path)
        (directory, name) = Self.split(self.path)
    }

    /// A path's directory and last component, as `NSString`'s `deletingLastPathComponent` and
    /// `lastPathComponent` give them, without their cost for the usual absolute path with single slashes.
    static func split(_ path: String) -> (directory: String, name: String) {
        let bytes = path.utf8
        let slash = UInt8(ascii: "/")
        guard let last = bytes.lastIndex(of: slash), last != bytes.startIndex, bytes.first == slash,
            bytes.index(after: last) != bytes.endIndex,
            !zip(bytes, bytes.dropFirst()).contains(where: { $0 == slash && $1 == slash })
        else {
            return ((path as NSString).deletingLastPathComponent, (path as NSString).lastPathComponent)
        }
        return (String(path[..<last]), String(path[path.index(after: last)...]))
    }

    /// The longest name, in bytes of UTF-8, that a file may have: its temporaries' names, at most 42 bytes longer,
    /// and its lock file's, 5 bytes longer, then fit the file systems' limit of 255 bytes, whatever the process
    /// identifier and the random part.
    static let nameLimit = 205

    /// What is at the path, as far as writing it goes.
    enum Kind {
        case regular
        case directory
        /// A FIFO, a device or a socket: nothing a save may replace or a delete may remove.
        case special
    }

    /// What is at the path, or `nil` if nothing is.
    func kind() throws -> Kind? {
        try status().map(Kind.init)
    }

    /// The status of what is at the path, without following a symbolic link; `nil` if nothing is there.
    func status() throws -> stat? {
        var status = stat()
        guard SystemCalls.current.lstat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemError.last("lstat", .read)
        }
        return status
    }

    /// The file's temporary. One name serves every save, since only the holder of the lock writes it: there is
    /// nothing to generate, and a temporary a writer left when it died is replaced by the next save, without a
    /// search of the directory.
    private var temporary: String { "\(directory)/.\(name).persistible.tmp" }

    /// Creates the temporary, open for writing, replacing one that a writer left when it died.
    private func createTemporary(mode: mode_t) throws -> Int32 {
        let system = SystemCalls.current
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW
        let path = temporary
        var descriptor = retryingOnInterrupt { system.open(path, flags, mode) }
        if descriptor < 0, errno == EEXIST {
            guard system.unlink(path) == 0 || errno == ENOENT else {
                throw SystemError.last("remove abandoned temporary", .write)
            }
            descriptor = retryingOnInterrupt { system.open(path, flags, mode) }
        }
        guard descriptor >= 0 else { throw SystemError.last("create temporary file", .write) }
        return descriptor
    }

    /// Removes the temporary a writer left when it died, if there is one; a failure is ignored, as it costs disk
    /// space, not data, and the next save tries again.
    func removeAbandonedTemporary() {
        _ = SystemCalls.current.unlink(temporary)
    }

    /// Replaces the file's contents with `bytes`.
    ///
    /// - Returns: The identity of the new file.
    /// - Throws: ``SystemError`` naming the call that failed; the file is then as it was, unless the operation is
    ///   `"fsync directory"`: then the new contents are in place, and the next durable operation on the file flushes
    ///   the directory.
    @discardableResult
    func write(_ bytes: Data, durability: Durability) throws -> FileIdentity {
        try write(bytes, unchangedPrefix: nil, durability: durability)
    }

    /// Replaces the file's contents with `bytes`, of which the first `unchangedPrefix.length` are those the file
    /// holds already.
    ///
    /// Where the file system can, the temporary starts as a clone of the file, sharing its blocks, and only the
    /// bytes from the first changed one on are written: the cost is that of the change, not of the file. Where it
    /// cannot, or the file is no longer the version `unchangedPrefix` describes, every byte is written. Either way
    /// the temporary is flushed and renamed over the file as for any write; the file itself is never written.
    ///
    /// - Returns: The identity of the new file.
    /// - Throws: ``SystemError`` naming the call that failed; the file is then as it was, unless the operation is
    ///   `"fsync directory"`: then the new contents are in place, and the next durable operation on the file flushes
    ///   the directory.
    @discardableResult
    func write(_ bytes: Data, unchangedPrefix: UnchangedPrefix?, durability: Durability) throws -> FileIdentity {
        let system = SystemCalls.current
        // The directory is opened once, to refuse an append-only one before a temporary is made in it and to flush
        // the rename. One that cannot be opened is flushed by its path after the rename, which fails and says so.
        let directoryDescriptor = retryingOnInterrupt {
            system.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        }
        defer { if directoryDescriptor >= 0 { _ = system.close(directoryDescriptor) } }
        guard directoryDescriptor < 0 || !system.isAppendOnly(directoryDescriptor) else {
            throw SystemError(phase: .write, operation: "check append-only directory", code: EPERM)
        }
        let temporary = self.temporary
        // The file to clone is opened and its status read once, for the clone and for the mode and owner.
        let source = unchangedPrefix.flatMap { cloneSource(keeping: $0, of: bytes) }
        defer { if let source { _ = system.close(source.descriptor) } }
        var existing = source?.status ?? stat()
        let replacing = source != nil || system.stat(path, &existing) == 0
        // A new file gets the usual 0666 less the umask; a replacement gets the old file's mode below.
        let mode = replacing
            ? Self.creationMode(replacing: existing, in: ownershipOfDirectory(directoryDescriptor)) : 0o666
        let (descriptor, clone) = try source.map { source in
            try FileClone.create(
                atPath: temporary, sharing: source, keeping: unchangedPrefix?.length ?? 0, total: bytes.count,
                orCreate: { try createTemporary(mode: mode) }
            )
        } ?? (createTemporary(mode: mode), nil)
        var written = stat()
        var isOpen = true
        do {
            if replacing {
                try Self.copyOwnership(from: existing, to: descriptor)
            }
            if let clone {
                // The length is set before the rest is written, so that the write stays within the file. A write
                // past the end makes XFS reserve blocks beyond it in case the file grows on, and closing the file
                // then gives them back in a transaction of its own, on every save. A truncate to the length the
                // file has already would cost a transaction too, so it is skipped.
                if bytes.count != clone.length {
                    guard system.ftruncate(descriptor, off_t(bytes.count)) == 0 else {
                        throw SystemError.last("ftruncate", .write)
                    }
                }
                try Self.writeAll(bytes, from: clone.shared, to: descriptor)
            } else {
                try Self.writeAll(bytes, from: 0, to: descriptor)
            }
            if durability == .full {
                try flushToDisk(descriptor, "fsync")
            } else {
                // Without this, a power loss can keep the rename and lose the bytes, leaving an empty or
                // zero-filled file where the old version stood: the bytes reach the disk before the name does.
                try flushDataBeforeRename(descriptor)
                // The bytes can still fail to reach the file (NFS says so when it is closed): it is closed, and the
                // identity read, before it replaces anything.
                guard system.fstat(descriptor, &written) == 0 else { throw SystemError.last("fstat", .write) }
                isOpen = false
                guard system.close(descriptor) == 0 else { throw SystemError.last("close", .write) }
            }
            guard system.rename(temporary, path) == 0 else { throw SystemError.last("rename", .write) }
        } catch {
            if isOpen { _ = system.close(descriptor) }
            _ = system.unlink(temporary)
            throw error
        }
        if isOpen {
            // Flushed, the file's identity is read from the open file, so it is this file's whatever is at the path
            // by then, and only once the rename has changed it: reading its times before a change makes the change
            // cost more (see FileOwnership). Should it fail, an identity no file has makes the next operation read
            // the file. Closing can report nothing the flushed contents depend on.
            if system.fstat(descriptor, &written) != 0 { written = stat() }
            _ = system.close(descriptor)
        }
        changes.madeAny = true
        if durability == .full {
            try Directory.flushAfterChange(
                atPath: directory, descriptor: directoryDescriptor >= 0 ? directoryDescriptor : nil
            )
        }
        return FileIdentity(written)
    }

    /// Flushes the file as it is, if there is one, and its directory.
    ///
    /// A durable operation that finds nothing to change still flushes: an earlier one, perhaps in a process that
    /// has since exited, may have replaced the file and failed to flush it, and success must mean that what this
    /// one found is on the disk. On a file and directory with nothing unflushed, each flush costs a system call.
    func flushAsFound() throws {
        let system = SystemCalls.current
        let descriptor = retryingOnInterrupt { system.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0) }
        if descriptor >= 0 {
            defer { _ = system.close(descriptor) }
            try flushToDisk(descriptor, "fsync")
        } else if errno != ENOENT {
            throw SystemError.last("open", .write)
        }
        try Directory.flushAfterChange(atPath: directory)
    }

    /// Removes the file, following a symbolic link to its target; a missing file is not an error.
    func remove(durability: Durability) throws {
        guard SystemCalls.current.unlink(path) == 0 else {
            if errno == ENOENT { return }
            throw SystemError.last("unlink", .write)
        }
        changes.madeAny = true
        if durability == .full {
            try Directory.flushAfterChange(atPath: directory)
        }
    }

    /// Removes the temporaries that writers of version 0.1.0 left when they died, once per file and process.
    ///
    /// Version 0.1.0 named each temporary `.<name>.persistible-<pid>-<random>.tmp` and made it while holding the
    /// file's lock, as every version does: so the holder of the lock knows that any such temporary is abandoned.
    /// A name counts only when exactly a process identifier and a random part follow `.<name>.persistible-`, so the
    /// temporaries of a file whose name extends this one's (`rec.json.persistible-1.json` beside `rec.json`) are
    /// left alone. Failures are ignored: a leftover temporary costs disk space, not data.
    func removeTemporariesOfRelease010() {
        guard Self.cleanedOf010.withLock({ $0.insert(path).inserted }) else { return }
        let system = SystemCalls.current
        let prefix = ".\(name).persistible-"
        for entry in system.directoryEntries(directory) ?? [] where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let parts = entry.utf8.dropFirst(prefix.utf8.count).dropLast(4).split(
                separator: UInt8(ascii: "-"), omittingEmptySubsequences: false
            )
            let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
            let isLetter = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].allSatisfy(isDigit),
                parts[1].allSatisfy({ isDigit($0) || isLetter($0) })
            else { continue }
            _ = system.unlink(directory + "/" + entry)
        }
    }

    /// The files whose 0.1.0 temporaries this process has removed.
    private static let cleanedOf010 = Locked<Set<String>>([])

    // MARK: - Steps

    /// The mode to create the temporary that replaces `existing` with: the file's own where the temporary is sure
    /// to get the file's owner and group, so that in the usual case nothing is left to change; else 0600, so that
    /// nobody else can read the temporary before its owner, group and mode are set.
    ///
    /// The temporary belongs to this process's user, and to the process's group or the directory's (where the
    /// directory is setgid, or the file system is mounted to give new files their directory's group): the file's
    /// group is sure only where it is both.
    private static func creationMode(replacing existing: stat, in directory: FileOwnership?) -> mode_t {
        let system = SystemCalls.current
        guard existing.st_mode & 0o7000 == 0, existing.st_uid == system.effectiveUser(),
            existing.st_gid == system.effectiveGroup(),
            let directory, directory.group == existing.st_gid
        else { return 0o600 }
        return existing.st_mode & 0o777
    }

    /// The directory's ownership: the one the lock read, else read from `descriptor`, if it is open.
    private func ownershipOfDirectory(_ descriptor: Int32) -> FileOwnership? {
        if let directoryOwnership { return directoryOwnership }
        return descriptor >= 0 ? FileOwnership.of(descriptor: descriptor) : nil
    }

    private static func copyOwnership(from existing: stat, to descriptor: Int32) throws {
        // The new file's owner and group are the process's, or the directory's group where the directory is
        // setgid: whatever differs from the old file's is set back, before the mode, which fchown may clear.
        let system = SystemCalls.current
        guard let created = FileOwnership.of(descriptor: descriptor) else { throw SystemError.last("fstat", .write) }
        var group = created.group
        if created.owner != existing.st_uid || created.group != existing.st_gid {
            if system.effectiveUser() == 0 {
                guard system.fchown(descriptor, existing.st_uid, existing.st_gid) == 0 else {
                    throw SystemError.last("fchown", .write)
                }
                group = existing.st_gid
            } else if created.owner == existing.st_uid {
                // Only root may give a file to another owner. An owner may give it any group it belongs to, and
                // keeps the new file's group when it does not belong to the old one.
                if system.fchown(descriptor, uid_t.max, existing.st_gid) == 0 { group = existing.st_gid }
            }
        }
        var mode = existing.st_mode & 0o7777
        if group != existing.st_gid {
            // The file now belongs to a group that could not read it before: it gets no group access, so that a
            // save never lets anyone read the file who could not.
            mode &= ~0o070
        }
        // Created with the mode already, as usual, the file needs no change: on XFS it would cost a transaction.
        guard created.mode & 0o7777 != mode || group != created.group else { return }
        guard system.fchmod(descriptor, mode) == 0 else { throw SystemError.last("fchmod", .write) }
    }

    /// Writes `bytes` from the one at `offset` on, each at its own offset in the file.
    private static func writeAll(_ bytes: Data, from offset: Int, to descriptor: Int32) throws {
        let system = SystemCalls.current
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var position = offset
            while position < buffer.count {
                let written = retryingOnInterrupt {
                    system.pwrite(descriptor, base + position, buffer.count - position, off_t(position))
                }
                guard written > 0 else {
                    throw written == 0 ? SystemError(phase: .write, operation: "write", code: EIO)
                        : SystemError.last("write", .write)
                }
                position += written
            }
        }
    }

    // MARK: - Clones

    /// The bytes a new version of a file shares with the version it replaces.
    struct UnchangedPrefix {
        /// How many bytes at the start are the same.
        var length: Int
        /// The version whose bytes they are; any other version at the path is written whole.
        var identity: FileIdentity
    }

    /// The file, open for reading, and its status, when it is the version `prefix` describes and a clone of it is
    /// worth trying; else `nil`.
    private func cloneSource(keeping prefix: UnchangedPrefix, of bytes: Data) -> (descriptor: Int32, status: stat)? {
        guard prefix.length > 0, prefix.length <= bytes.count, FileClone.mayClone(onDevice: prefix.identity.device)
        else { return nil }
        let system = SystemCalls.current
        let source = retryingOnInterrupt { system.open(path, O_RDONLY | O_CLOEXEC, 0) }
        guard source >= 0 else { return nil }
        var status = stat()
        // The identity is checked on the open file, so the clone is of the very version the prefix came from.
        guard system.fstat(source, &status) == 0, status.isRegularFile,
            FileIdentity(status) == prefix.identity, Int(status.st_size) >= prefix.length
        else {
            _ = system.close(source)
            return nil
        }
        return (source, status)
    }

    // MARK: - Symbolic links

    /// The path at the end of the symbolic links from `start`, and what is there, `nil` if nothing is.
    private static func resolveSymbolicLinks(_ start: String) throws -> (path: String, kind: Kind?) {
        let system = SystemCalls.current
        var path = start
        // The limit matches the kernel's: a longer chain is a loop, and opening it would fail with ELOOP anyway.
        for _ in 0..<40 {
            var status = stat()
            guard system.lstat(path, &status) == 0 else {
                if errno == ENOENT { return (path, nil) }
                throw SystemError.last("lstat", .read)
            }
            guard status.isSymbolicLink else { return (path, Kind(status)) }
            guard let target = system.readlink(path) else { throw SystemError.last("readlink", .write) }
            path = target.hasPrefix("/")
                ? target : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        }
        throw SystemError(phase: .write, operation: "resolve symbolic link", code: ELOOP)
    }
}

extension AtomicFile.Kind {
    /// What the status says is there; a symbolic link counts as special, as nothing a save may replace.
    init(_ status: stat) {
        switch status.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        default: self = .special
        }
    }
}
