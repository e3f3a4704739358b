import Foundation

/// An XFS file system with reflink, in a sparse image file inside the sandbox, loop-mounted for one run, so that
/// appends can be measured where the package clones files.
///
/// It needs root and `mkfs.xfs` (Debian: `xfsprogs`); without them the run reports the XFS rows as skipped.
final class XFSImage {
    /// The root of the mounted file system.
    let root: URL

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Makes and mounts the file system, or says why it cannot.
    init(in sandbox: Sandbox) throws {
        guard geteuid() == 0 else { throw Unavailable(description: "mounting an image needs root") }
        guard let mkfs = ["/usr/sbin/mkfs.xfs", "/sbin/mkfs.xfs"].first(where: FileManager.default.isExecutableFile)
        else { throw Unavailable(description: "mkfs.xfs is not installed (Debian: apt-get install xfsprogs)") }
        let image = sandbox.file("xfs.img").path
        root = sandbox.file("xfs")
        let file = open(image, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Unavailable(description: "cannot create \(image)") }
        // Sparse: only the blocks in use take room on the disk below.
        let sized = ftruncate(file, 2 << 30) == 0
        close(file)
        guard sized, mkdir(root.path, 0o755) == 0 else { throw Unavailable(description: "cannot make \(image)") }
        _ = try runTool(mkfs, ["-q", "-m", "reflink=1", image])
        _ = try runTool("/bin/mount", ["-o", "loop", image, root.path])
    }

    /// Unmounts, lazily if the mount is still busy; the sandbox's removal then takes the image.
    func unmount() {
        if (try? runTool("/bin/umount", [root.path])) == nil {
            _ = try? runTool("/bin/umount", ["-l", root.path])
        }
    }
}
