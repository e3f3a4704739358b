import Foundation

/// Gives a file a new name in its directory without ever replacing a file that has that name already.
enum FileRename {
    /// Renames the file at `path` to the first of `candidates` that names no file, and flushes the directory.
    ///
    /// `rename` replaces its destination, so the file is linked under the new name, which fails if the name is
    /// taken, and only then unlinked under the old one.
    ///
    /// - Returns: The name it was given.
    /// - Throws: ``SystemError`` naming the call that failed; the file then keeps its name.
    static func renameWithoutReplacing(
        _ path: String, to candidates: some Sequence<String>, durability: Durability
    ) throws -> String {
        for candidate in candidates {
            guard link(path, candidate) == 0 else {
                if errno == EEXIST { continue }
                throw SystemError.last("link", .write)
            }
            guard unlink(path) == 0 else {
                let failure = SystemError.last("unlink", .write)
                unlink(candidate)
                throw failure
            }
            if durability == .full {
                try Directory.flush(atPath: (path as NSString).deletingLastPathComponent)
            }
            return candidate
        }
        throw SystemError(phase: .write, operation: "link", code: EEXIST)
    }
}
