import Foundation
import Persistible
import Testing

/// The kind of file system a test's temporary directory is on.
///
/// Tests of what a save guarantees take a `Volume` argument and run on each: on the ordinary temporary directory,
/// where saves write whole files, and on an XFS file system with reflink, where appends clone the file and write
/// only its end.
enum Volume: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case ordinary
    case xfsReflink

    /// The volumes this machine can make: a test is not given XFS where none can be mounted, and the run says why
    /// once. Leaving the case out, rather than cancelling it, is what every Swift 6 toolchain can do: `Test.cancel`
    /// came with Swift 6.3.
    static var allCases: [Volume] {
        guard XFSVolume.unavailability == nil else {
            XFSVolume.announceSkipping
            return [.ordinary]
        }
        return [.ordinary, .xfsReflink]
    }

    var testDescription: String {
        switch self {
        case .ordinary: return "on the ordinary temporary directory"
        case .xfsReflink: return "on XFS with reflink"
        }
    }
}

extension TemporaryDirectory {
    /// A fresh directory on `volume`.
    init(on volume: Volume) throws {
        switch volume {
        case .ordinary:
            try self.init()
        case .xfsReflink:
            let mounted = try XFSVolume()
            self.init(mounted: mounted)
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips a test that needs an XFS with reflink where none can be mounted.
    static var needsXFS: Self {
        .enabled(if: XFSVolume.unavailability == nil, "needs root and mkfs.xfs to mount an XFS with reflink")
    }
}

/// Runs `body` with a fresh directory on `volume` as the archive directory of types that do not declare their own.
func inTemporaryDirectory<Result>(
    on volume: Volume, _ body: (borrowing TemporaryDirectory) throws -> Result
) throws -> Result {
    let directory = try TemporaryDirectory(on: volume)
    return try withArchiveDirectory(directory.url) { try body(directory) }
}

/// A new XFS file system with reflink, made in a sparse image file and loop-mounted for one test, unmounted and
/// removed when the test is done with it.
///
/// Each test mounts its own, so that tests run in parallel share nothing; making and mounting one takes a few tens
/// of milliseconds.
final class XFSVolume: Sendable {
    /// The root of the mounted file system, empty when the volume is made.
    let root: URL
    /// The directory holding the image and the mount point.
    private let container: URL
    private var image: String { container.appendingPathComponent("xfs.img").path }

    /// Why no volume can be made here, or `nil` if one can.
    static let unavailability: String? = {
        guard geteuid() == 0 else { return "mounting needs root, and this process runs as user \(geteuid())" }
        guard mkfs != nil else { return "mkfs.xfs is not installed (Debian: apt-get install xfsprogs)" }
        return nil
    }()

    /// Prints, once per test run, why the cases on XFS are skipped.
    static let announceSkipping: Void = {
        print("Skipping every test case on XFS with reflink: \(unavailability ?? "").")
    }()

    private static let mkfs: String? = ["/usr/sbin/mkfs.xfs", "/sbin/mkfs.xfs", "/usr/bin/mkfs.xfs"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/persistible-xfs.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        container = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        root = container.appendingPathComponent("mount", isDirectory: true)
        let image = self.image
        do {
            // Sparse: the image takes only the blocks the file system uses. 300 MB is mkfs.xfs's smallest.
            let file = open(image, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            let sized = file >= 0 && ftruncate(file, 320 << 20) == 0
            let reason = String(cString: strerror(errno))
            if file >= 0 { close(file) }
            guard sized else { throw XFSVolumeError(step: "create the image", output: reason) }
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false)
            try Self.run(Self.mkfs ?? "mkfs.xfs", ["-q", "-m", "reflink=1", image], step: "make the file system")
            try Self.run("/bin/mount", ["-o", "loop", image, root.path], step: "mount the image")
        } catch {
            try? FileManager.default.removeItem(at: container)
            throw error
        }
    }

    deinit {
        // A lazy unmount detaches even a busy mount, and frees the loop device once the last user is gone.
        if (try? Self.run("/bin/umount", [root.path], step: "unmount")) == nil {
            try? Self.run("/bin/umount", ["-l", root.path], step: "unmount lazily")
        }
        try? FileManager.default.removeItem(at: container)
    }

    /// Stops the file system as a power loss would: what its log holds in memory and every write not yet on the
    /// image is lost, and every later operation on it fails with `EIO`.
    func shutDown() throws {
        let xfsIO = ["/usr/sbin/xfs_io", "/sbin/xfs_io", "/usr/bin/xfs_io"]
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "xfs_io"
        // Without -f the log is not flushed first: the disk keeps only what reached it before.
        try Self.run(xfsIO, ["-x", "-c", "shutdown", root.path], step: "shut down")
    }

    /// Unmounts the file system and mounts it again, which replays its log as a boot after a power loss does.
    func remount() throws {
        try Self.run("/bin/umount", [root.path], step: "unmount after the shutdown")
        try Self.run("/bin/mount", ["-o", "loop", image, root.path], step: "mount again")
    }

    private static func run(_ tool: String, _ arguments: [String], step: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XFSVolumeError(step: step, output: text) }
    }
}

struct XFSVolumeError: Error, CustomStringConvertible {
    var step: String
    var output: String
    var description: String { "Could not \(step) of the XFS test volume: \(output)" }
}

/// Whether the file at `path` shares any of its blocks with another file, as a clone does: the `FIEMAP` ioctl's
/// `FIEMAP_EXTENT_SHARED` flag on one of its extents.
func sharesBlocks(atPath path: String) throws -> Bool {
    try extentFlags(atPath: path).contains { $0 & 0x2000 != 0 }
}

/// How many extents, runs of contiguous blocks, hold the file at `path`, after its data is flushed.
func extentCount(atPath path: String) throws -> Int {
    try extentFlags(atPath: path).count
}

/// The `FIEMAP` flags of each extent of the file at `path`, at most 4,096 of them.
private func extentFlags(atPath path: String) throws -> [UInt32] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(descriptor) }
    // struct fiemap (32 bytes) followed by room for the struct fiemap_extent (56 bytes each).
    let extentCount = 4096
    var buffer = [UInt8](repeating: 0, count: 32 + 56 * extentCount)
    let mapped: Int32 = buffer.withUnsafeMutableBytes { raw in
        raw.storeBytes(of: UInt64(0), toByteOffset: 0, as: UInt64.self)  // fm_start
        raw.storeBytes(of: UInt64.max, toByteOffset: 8, as: UInt64.self)  // fm_length
        raw.storeBytes(of: UInt32(1), toByteOffset: 16, as: UInt32.self)  // fm_flags: FIEMAP_FLAG_SYNC
        raw.storeBytes(of: UInt32(extentCount), toByteOffset: 24, as: UInt32.self)  // fm_extent_count
        // FS_IOC_FIEMAP = _IOWR('f', 11, struct fiemap)
        guard ioctl(descriptor, UInt(0xC020_660B), raw.baseAddress!) == 0 else { return -1 }
        return Int32(raw.load(fromByteOffset: 20, as: UInt32.self))  // fm_mapped_extents
    }
    guard mapped >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    // fe_flags sits 40 bytes into each extent.
    return (0..<Int(mapped)).map { index in
        buffer.withUnsafeBytes { $0.load(fromByteOffset: 32 + 56 * index + 40, as: UInt32.self) }
    }
}
