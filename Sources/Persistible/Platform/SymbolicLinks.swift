#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Following links as the kernel would for this user

// The package reads the data file's link itself and then acts on the path it leads to, so the kernel's own check on
// links, `fs.protected_symlinks`, never sees the last link, and the system may have it off. The rule is applied
// here, to each link on the way to the file, whatever the system's setting: a link that stands in a sticky,
// world-writable directory (`/tmp`, a team's drop folder) is followed only when it belongs to the user following it
// or to the directory's owner. Anyone may plant a link there; only those two can be trusted to have meant it.
//
//     /tmp (1777, root)   Rec.json -> /etc/cron.d/job   owned by uid 65534
//     root following it:   refused, the link is neither root's nor the directory's owner's
//     uid 65534 following it: followed, as the kernel would (the link is theirs)
//
// Links elsewhere are followed as before: a dotfiles manager's `~/.config/app/Settings.json -> ~/dotfiles/...`
// stands in a directory only its owner writes.

/// A link that the rule above refuses to follow, and who owns it.
struct RefusedLink: Error {
    var path: String
    var owner: uid_t
}

enum SymbolicLinks {
    /// The path of the file at the end of `start`'s links, spelled as `start` is up to its last link, and the
    /// status of what is there (`nil` if nothing); throws ``RefusedLink`` for a link the rule refuses, checking the
    /// links in the directories on the way as well as those the file's name leads through.
    static func resolve(_ start: String) throws -> (path: String, status: stat?) {
        var path = start
        var budget = linkLimit
        while true {
            try checkDirectories(of: path, budget: &budget)
            guard let status = try FileSystem.entryStatus(path) else { return (path, nil) }
            guard status.isSymbolicLink else { return (path, status) }
            let directory = Path.directory(of: path)
            try check(link: path, owner: status.st_uid, in: directory.isEmpty ? "." : directory)
            budget -= 1
            guard budget > 0 else { throw SystemError(phase: .write, operation: "resolve symbolic link", code: ELOOP) }
            let target = try FileSystem.linkTarget(path)
            path = target.hasPrefix("/") ? target : Path.appending(target, to: directory)
        }
    }

    /// The kernel's limit: a longer chain is a loop, and opening it would fail with `ELOOP` anyway.
    private static let linkLimit = 40

    /// Throws unless the link at `path`, owned by `owner`, may be followed from `directory`, where it stands.
    private static func check(link path: String, owner: uid_t, in directory: String) throws {
        guard owner != FileSystem.effectiveUser, let status = FileSystem.status(directory),
            status.st_mode & S_ISVTX != 0, status.st_mode & S_IWOTH != 0, owner != status.st_uid
        else { return }
        throw RefusedLink(path: path, owner: owner)
    }

    /// Walks the directories that lead to `path`, as the system will, applying the rule to each link among them.
    /// Only lists paths: what the walk finds is the system's to find again when the file is opened.
    private static func checkDirectories(of path: String, budget: inout Int) throws {
        var pending = Array(Path.directory(of: path).split(separator: "/").reversed())
        // Free of links from here on: a parent is the directory that holds the name.
        var walked = path.hasPrefix("/") ? "/" : ""
        while let component = pending.popLast() {
            switch component {
            case ".":
                continue
            case "..":
                // Lexically, since `walked` holds no link; past the start of a relative path, `..` stays.
                if walked.isEmpty || walked == ".." || walked.hasSuffix("/..") {
                    walked = Path.appending("..", to: walked)
                } else if walked != "/" {
                    walked = Path.directory(of: walked)
                }
                continue
            default:
                break
            }
            let next = Path.appending(String(component), to: walked)
            // A missing directory holds no links; a saver may create it, and the next call fails where it is not.
            guard let status = try? FileSystem.entryStatus(next), status.isSymbolicLink else {
                walked = next
                continue
            }
            try check(link: next, owner: status.st_uid, in: walked.isEmpty ? "." : walked)
            budget -= 1
            guard budget > 0 else { throw SystemError(phase: .write, operation: "resolve symbolic link", code: ELOOP) }
            let target = try FileSystem.linkTarget(next)
            if target.hasPrefix("/") { walked = "/" }
            pending += target.split(separator: "/").reversed()
        }
    }
}
