import Foundation

/// Replaces a file's contents all at once: readers and crashes see the old contents or the new, never a mixture.
///
/// A write makes a temporary beside the file (a clone of it, where the new bytes begin with the old and the file
/// system shares blocks), writes it, gives it the file's mode and owner, flushes it, renames it over the file and
/// flushes the directory. On any failure the temporary is removed and the file untouched. A symbolic link is
/// followed, so the link stays a link.
///
/// Writers must hold the file's ``FileLock``: so the one temporary, `.<name>.persistible.tmp`, is written only by
/// the holder, and whatever is found there is what a writer left when it died.
struct AtomicFile {
    /// The file to replace, with symbolic links already resolved.
    let path: String
    let directory: String
    let name: String
    /// What was at `path` when the links were resolved, or `nil` if nothing was.
    let kindWhenResolved: Kind?
    /// The ownership of `directory` as the lock read it, if it did, so that a save need not read it again.
    var directoryOwnership: FileOwnership?
    /// The file's identity once the lock was taken, `nil` if there was no file: right until the holder writes.
    var identityUnderLock: FileIdentity?
    private let changes = Changes()

    private final class Changes {
        var madeAny = false
    }

    /// Whether this operation replaced or removed the file; one that did not flushes it as it found it.
    var hasChanged: Bool { changes.madeAny }

    /// The file at `path`, or the file a symbolic link there points to, however many links deep.
    init(resolving path: String) throws {
        (self.path, kindWhenResolved) = try Self.resolveSymbolicLinks(path)
        (directory, name) = Self.split(self.path)
    }

    /// A path's directory and last component, without `NSString`'s cost for the usual absolute path.
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

    /// The longest file name, in bytes, whose temporaries (42 bytes longer at most) and lock file (5 bytes longer)
    /// fit the file systems' limit of 255 bytes.
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

    /// The status of what is at the path, not following a link; `nil` if nothing is there.
    func status() throws -> stat? {
        try FileSystem.entryStatus(path)
    }

    /// The one temporary of the file: only the holder of the lock writes it, so there is no name to generate and no
    /// directory to search for one a writer left when it died.
    private var temporary: String { "\(directory)/.\(name).persistible.tmp" }

    /// Creates the temporary, open for writing, replacing one that a writer left when it died.
    private func createTemporary(mode: mode_t) throws -> OpenFile {
        if let created = try OpenFile.create(exclusive: temporary, mode: mode, operation: "create temporary file") {
            return created
        }
        try FileSystem.remove(temporary, operation: "remove abandoned temporary")
        guard let created = try OpenFile.create(exclusive: temporary, mode: mode, operation: "create temporary file")
        else { throw SystemError(phase: .write, operation: "create temporary file", code: EEXIST) }
        return created
    }

    /// Removes the temporary a writer left when it died, if any; a failure costs disk space, not data.
    func removeAbandonedTemporary() {
        FileSystem.removeQuietly(temporary)
    }

    /// Replaces the file's contents with `bytes`, of which the first `unchangedPrefix.length` are the file's.
    ///
    /// Where the file system can, and the file is still the version `unchangedPrefix` describes, the temporary starts
    /// as a clone of it and only the rest is written, so the cost is that of the change. The file itself is never
    /// written.
    ///
    /// - Returns: The identity of the new file.
    /// - Throws: ``SystemError`` naming the call that failed; the file is then as it was, unless the call is
    ///   `"fsync directory"`: then the new contents are in place, and the next durable operation flushes the directory.
    @discardableResult
    func write(_ bytes: Data, unchangedPrefix: UnchangedPrefix?, durability: Durability) throws -> FileIdentity {
        // The directory is opened once, to refuse an append-only one before a temporary is made in it and to flush
        // the rename. One that cannot be opened is flushed by its path after the rename, which fails and says so.
        let openDirectory = try? OpenFile.open(directory, O_RDONLY | O_DIRECTORY, .write)
        defer { openDirectory?.closeQuietly() }
        guard openDirectory?.isAppendOnly != true else {
            throw SystemError(phase: .write, operation: "check append-only directory", code: EPERM)
        }
        let temporary = self.temporary
        // The file to clone is opened and its status read once, for the clone and for the mode and owner.
        let source = unchangedPrefix.flatMap { cloneSource(keeping: $0, of: bytes) }
        defer { source?.file.closeQuietly() }
        let existing = source?.status ?? FileSystem.status(path)
        // A new file gets the usual 0666 less the umask; a replacement gets the old file's mode below.
        let mode = existing.map { Self.creationMode(replacing: $0, in: directoryOwnership ?? openDirectory?.ownership) }
            ?? 0o666
        let (file, clone) = try source.map { source in
            try FileClone.create(
                atPath: temporary, sharing: source, keeping: unchangedPrefix?.length ?? 0, total: bytes.count,
                orCreate: { try createTemporary(mode: mode) }
            )
        } ?? (createTemporary(mode: mode), nil)
        var written = stat()
        var isOpen = true
        do {
            if let existing {
                try Self.copyOwnership(from: existing, to: file)
            }
            if let clone {
                // The length is set before the rest is written, so that the write stays within the file. A write
                // past the end makes XFS reserve blocks beyond it in case the file grows on, and closing the file
                // then gives them back in a transaction of its own, on every save. A truncate to the length the
                // file has already would cost a transaction too, so it is skipped.
                if bytes.count != clone.length { try file.truncate(to: bytes.count) }
                try file.write(bytes, from: clone.shared)
            } else {
                try file.write(bytes, from: 0)
            }
            if durability == .full {
                try file.flush()
            } else {
                // Without this, a power loss can keep the rename and lose the bytes, leaving an empty or
                // zero-filled file where the old version stood: the bytes reach the disk before the name does.
                try file.flushDataBeforeRename()
                // The bytes can still fail to reach the file (NFS says so when it is closed): it is closed, and the
                // identity read, before it replaces anything.
                written = try file.status()
                isOpen = false
                try file.close()
            }
            try FileSystem.rename(temporary, to: path)
        } catch {
            if isOpen { file.closeQuietly() }
            FileSystem.removeQuietly(temporary)
            throw error
        }
        if isOpen {
            // Flushed, the file's identity is read from the open file, so it is this file's whatever is at the path
            // by then, and only once the rename has changed it: reading its times before a change makes the change
            // cost more (see FileOwnership). Should it fail, an identity no file has makes the next operation read
            // the file. Closing can report nothing the flushed contents depend on.
            written = (try? file.status()) ?? stat()
            file.closeQuietly()
        }
        changes.madeAny = true
        if durability == .full {
            try Directory.flushAfterChange(atPath: directory, openDirectory: openDirectory)
        }
        return FileIdentity(written)
    }

    /// Flushes the file as it is, if there is one, and its directory: an earlier operation, perhaps in a process that
    /// has exited, may have replaced it and failed to flush, and a durable success must mean what it found is on the
    /// disk.
    func flushAsFound() throws {
        if let file = try OpenFile.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, .write) {
            defer { file.closeQuietly() }
            try file.flush()
        }
        try Directory.flushAfterChange(atPath: directory)
    }

    /// Removes the file, following a symbolic link to its target; a missing file is not an error.
    func remove(durability: Durability) throws {
        guard try FileSystem.remove(path) else { return }
        changes.madeAny = true
        if durability == .full {
            try Directory.flushAfterChange(atPath: directory)
        }
    }

    /// Removes the temporaries, `.<name>.persistible-<pid>-<random>.tmp`, that writers of version 0.1.0 left when
    /// they died: they too wrote them holding the lock. Only exactly that pattern counts, so that a file whose name
    /// extends this one's keeps its own; a failure costs disk space, not data.
    ///
    /// - Returns: Whether the directory was read and every such temporary removed.
    func removeTemporariesOfRelease010() -> Bool {
        let prefix = ".\(name).persistible-"
        guard let names = FileSystem.names(inDirectory: directory) else { return false }
        var removedAll = true
        for entry in names where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let parts = entry.utf8.dropFirst(prefix.utf8.count).dropLast(4).split(
                separator: UInt8(ascii: "-"), omittingEmptySubsequences: false
            )
            let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
            let isLetter = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].allSatisfy(isDigit),
                parts[1].allSatisfy({ isDigit($0) || isLetter($0) })
            else { continue }
            removedAll = (try? FileSystem.remove(directory + "/" + entry)) != nil && removedAll
        }
        return removedAll
    }

    // MARK: - Steps

    /// The mode to create a replacement of `existing` with: the file's own where the temporary is sure to get the
    /// file's owner and group (the process's user, and its group or the directory's), else 0600, so that nobody else
    /// reads the temporary before its owner, group and mode are set.
    private static func creationMode(replacing existing: stat, in directory: FileOwnership?) -> mode_t {
        guard existing.st_mode & 0o7000 == 0, existing.st_uid == FileSystem.effectiveUser,
            existing.st_gid == FileSystem.effectiveGroup,
            let directory, directory.group == existing.st_gid
        else { return 0o600 }
        return existing.st_mode & 0o777
    }

    private static func copyOwnership(from existing: stat, to file: OpenFile) throws {
        // The new file's owner and group are the process's, or the directory's group where the directory is
        // setgid: whatever differs from the old file's is set back, before the mode, which fchown may clear.
        guard let created = file.ownership else { throw SystemError.last("fstat", .write) }
        var group = created.group
        if created.owner != existing.st_uid || created.group != existing.st_gid {
            if FileSystem.effectiveUser == 0 {
                guard file.changeOwner(to: existing.st_uid, group: existing.st_gid) else {
                    throw SystemError.last("fchown", .write)
                }
                group = existing.st_gid
            } else if created.owner == existing.st_uid {
                // Only root may give a file to another owner. An owner may give it any group it belongs to, and
                // keeps the new file's group when it does not belong to the old one.
                if file.changeOwner(to: uid_t.max, group: existing.st_gid) { group = existing.st_gid }
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
        try file.changeMode(to: mode)
    }

    // MARK: - Clones

    /// The bytes a new version of a file shares with the version it replaces.
    struct UnchangedPrefix {
        /// How many bytes at the start are the same.
        var length: Int
        /// The version whose bytes they are; any other version at the path is written whole.
        var identity: FileIdentity
    }

    /// The file, open, and its status, when it is the version `prefix` describes and a clone is worth trying.
    private func cloneSource(keeping prefix: UnchangedPrefix, of bytes: Data) -> (file: OpenFile, status: stat)? {
        guard prefix.length > 0, prefix.length <= bytes.count, FileClone.mayClone(onDevice: prefix.identity.device),
            let source = try? OpenFile.open(path, O_RDONLY, .read)
        else { return nil }
        // The identity is checked on the open file, so the clone is of the very version the prefix came from.
        guard let status = try? source.status(), status.isRegularFile, FileIdentity(status) == prefix.identity,
            Int(status.st_size) >= prefix.length
        else {
            source.closeQuietly()
            return nil
        }
        return (source, status)
    }

    // MARK: - Symbolic links

    /// The path at the end of the symbolic links from `start`, and what is there, `nil` if nothing is.
    private static func resolveSymbolicLinks(_ start: String) throws -> (path: String, kind: Kind?) {
        var path = start
        // The limit matches the kernel's: a longer chain is a loop, and opening it would fail with ELOOP anyway.
        for _ in 0..<40 {
            guard let status = try FileSystem.entryStatus(path) else { return (path, nil) }
            guard status.isSymbolicLink else { return (path, Kind(status)) }
            let target = try FileSystem.linkTarget(path)
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
