import Foundation

/// Gives a file a new name in its directory without ever replacing a file that has that name already.
enum FileRename {
    /// Renames the file at `path` to the first of `candidates` that names no file, and flushes the directory.
    ///
    /// `rename` replaces its destination, so the file is renamed with the system's no-replace rename where there is
    /// one (it needs nothing but write access to the directory); elsewhere, or where the file system refuses it, it
    /// is linked under the new name, which fails if the name is taken, and only then unlinked under the old one.
    ///
    /// - Returns: The name it was given.
    /// - Throws: ``SystemError`` naming the call that failed. After a failed `link` or `unlink` the file keeps its
    ///   name; after `"fsync directory"` it has the new one, which a power loss may undo.
    static func renameWithoutReplacing(
        _ path: String, to candidates: some Sequence<String>, durability: Durability
    ) throws -> String {
        let system = SystemCalls.current
        for candidate in candidates {
            if system.renameNoReplace(path, candidate) != 0 {
                if errno == EEXIST { continue }
                guard system.link(path, candidate) == 0 else {
                    if errno == EEXIST { continue }
                    throw SystemError.last("link", .write)
                }
                guard system.unlink(path) == 0 else {
                    let failure = SystemError.last("unlink", .write)
                    _ = system.unlink(candidate)
                    throw failure
                }
            }
            if durability == .full {
                try Directory.flushAfterChange(atPath: (path as NSString).deletingLastPathComponent)
            }
            return candidate
        }
        throw SystemError(phase: .write, operation: "link", code: EEXIST)
    }
}
