import Foundation
import Testing

/// An edit by a tool that puts back what a file's status shows, so that only its change time tells it.
enum EditKeepingStatus: String, CaseIterable, Sendable {
    /// `cp --preserve=timestamps` of a file of the same size over it, which writes in place.
    case copiedKeepingTimes
    /// Removed, made again on the inode it had, and given back its modification time with `touch -d`.
    case madeAgainOnTheSameInode
}

extension TemporaryDirectory {
    /// Gives the file at `path` the bytes `edited`, of its length, as `edit` says, and checks that its device, inode,
    /// size and modification time are as they were: only its change time differs.
    func edit(_ path: String, to edited: Data, by edit: EditKeepingStatus) throws {
        let before = try #require(FileStatus(path))
        try #require(before.size == edited.count)
        // A change in the same tick of the file system's clock as the last one may get the same change time.
        try waitForTheFileSystemClock(toPass: before.changed)
        switch edit {
        case .copiedKeepingTimes:
            let copy = file("edited copy").path
            try edited.write(to: URL(fileURLWithPath: copy))
            defer { unlink(copy) }
            try run("touch", "-r", path, copy)
            try run("cp", "--preserve=timestamps", copy, path)
        case .madeAgainOnTheSameInode:
            try remakeOnItsInode(path, with: edited)
            let nanoseconds = String(before.modified.nanoseconds)
            let fraction = String(repeating: "0", count: 9 - nanoseconds.count) + nanoseconds
            try run("touch", "-m", "-d", "@\(before.modified.seconds).\(fraction)", path)
        }
        let after = try #require(FileStatus(path))
        try #require(after.device == before.device && after.inode == before.inode, "the same file")
        try #require(after.size == before.size, "the same size")
        try #require(after.modified == before.modified, "the same modification time")
        try #require(Data(contentsOf: URL(fileURLWithPath: path)) == edited)
    }

    /// Removes the file and makes it again until the system hands back its inode, as it does a freed one: the files
    /// made on others are kept aside meanwhile, so that each try takes another inode.
    private func remakeOnItsInode(_ path: String, with bytes: Data) throws {
        let inode = try #require(FileStatus(path)).inode
        #expect(unlink(path) == 0)
        var aside: [String] = []
        defer { for file in aside { unlink(file) } }
        for attempt in 0..<10_000 {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            try #require(descriptor >= 0)
            var status = stat()
            #expect(fstat(descriptor, &status) == 0)
            guard UInt64(status.st_ino) == inode else {
                close(descriptor)
                aside.append(file("aside \(attempt)").path)
                #expect(rename(path, aside.last!) == 0)
                continue
            }
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            #expect(written == bytes.count && close(descriptor) == 0)
            return
        }
        Issue.record("the file system never handed inode \(inode) back")
    }

    /// Waits until a change made now gets a later change time than `time`.
    private func waitForTheFileSystemClock(toPass time: FileStatus.Time) throws {
        let probe = file("clock probe").path
        try Data().write(to: URL(fileURLWithPath: probe))
        defer { unlink(probe) }
        for _ in 0..<10_000 {
            #expect(utimensat(AT_FDCWD, probe, nil, 0) == 0)
            if try #require(FileStatus(probe)).changed > time { return }
            usleep(1000)
        }
        Issue.record("the file system's clock did not move on")
    }

    private func run(_ arguments: String...) throws {
        let result = try ChildProcess.run("/usr/bin/env", arguments)
        try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result.errors)")
    }
}

/// What `stat` says of a file: what an edit keeping its status puts back, and its change time, which it cannot.
private struct FileStatus {
    struct Time: Comparable {
        var seconds: Int
        var nanoseconds: Int

        init(_ time: timespec) {
            (seconds, nanoseconds) = (Int(time.tv_sec), Int(time.tv_nsec))
        }

        static func < (left: Time, right: Time) -> Bool {
            (left.seconds, left.nanoseconds) < (right.seconds, right.nanoseconds)
        }
    }

    var device: UInt64
    var inode: UInt64
    var size: Int
    var modified: Time
    var changed: Time

    init?(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: status.st_dev)
        (inode, size) = (UInt64(status.st_ino), Int(status.st_size))
        #if canImport(Darwin)
        (modified, changed) = (Time(status.st_mtimespec), Time(status.st_ctimespec))
        #else
        (modified, changed) = (Time(status.st_mtim), Time(status.st_ctim))
        #endif
    }
}
