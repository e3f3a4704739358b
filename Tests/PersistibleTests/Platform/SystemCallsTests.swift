import Foundation
import Testing

@testable import Persistible

/// The live system calls keep their C contracts: what each does, and the error number each fails with.
@Suite struct SystemCallsTests {
    let system = SystemCalls.live

    @Test func aRenameThatDoesNotReplaceRefusesATakenNameAndMovesToAFreeOne() throws {
        let directory = try TemporaryDirectory()
        let from = directory.file("from").path
        let (taken, free) = (directory.file("taken").path, directory.file("free").path)
        try Data("from".utf8).write(to: directory.file("from"))
        try Data("taken".utf8).write(to: directory.file("taken"))

        #expect(system.renameNoReplace(from, taken) == -1 && errno == EEXIST)
        #expect(try Data(contentsOf: directory.file("taken")) == Data("taken".utf8))
        #expect(system.renameNoReplace(from, free) == 0)
        #expect(try directory.contents() == ["free", "taken"])
    }

    @Test func flushesSucceedOnAnOpenFileAndSayWhyOnAClosedOne() throws {
        let directory = try TemporaryDirectory()
        let descriptor = system.open(directory.file("data").path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        #expect(system.pwrite(descriptor, "bytes", 5, 0) == 5)
        #expect(system.dataSync(descriptor) == 0)
        #expect(system.fullSync(descriptor) == 0)
        #expect(system.close(descriptor) == 0)
        // Not `descriptor`, which a test running beside this one may have opened again since: no process can hold
        // descriptor Int32.max open (Linux caps them below 2^31 - 64 by fs.nr_open, Apple far lower).
        let closed = Int32.max
        #expect(system.dataSync(closed) == -1 && errno == EBADF)
        #expect(system.fullSync(closed) == -1 && errno == EBADF)
    }

    @Test func ownershipIsWhatStatSaysOfAnOpenFileAndOfAPath() throws {
        let directory = try TemporaryDirectory()
        try Data().write(to: directory.file("data"))
        #expect(chmod(directory.file("data").path, 0o640) == 0)
        var status = stat()
        #expect(stat(directory.file("data").path, &status) == 0)
        let descriptor = open(directory.file("data").path, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }

        for ownership in [system.ownership(descriptor, nil), system.ownership(-1, directory.file("data").path)] {
            #expect(ownership?.owner == status.st_uid)
            #expect(ownership?.group == status.st_gid)
            #expect(ownership?.mode == status.st_mode)
        }
        #expect(system.ownership(-1, directory.file("missing").path) == nil && errno == ENOENT)
    }

    @Test func aCloneSharesTheBytesOrSaysTheFileSystemCannot() throws {
        let directory = try TemporaryDirectory()
        let bytes = Data(repeating: 7, count: 8192)
        try bytes.write(to: directory.file("source"))
        let source = open(directory.file("source").path, O_RDONLY | O_CLOEXEC)
        let destination = open(directory.file("clone").path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer {
            close(source)
            close(destination)
        }
        if system.cloneRange(source, destination, 4096) == 0 {
            #expect(try Data(contentsOf: directory.file("clone")) == bytes.prefix(4096))
        } else {
            #expect([EOPNOTSUPP, ENOTSUP, EXDEV, EINVAL, ENOTTY, ENOSYS].contains(errno), "errno \(errno)")
        }
        #expect(system.cloneFile(source, directory.file("whole").path) == -1 && errno == ENOTSUP)
    }

    @Test func theExtentsOfAFileCoverItsBytesOrAreUnknown() throws {
        let directory = try TemporaryDirectory()
        try Data(repeating: 1, count: 3 * 4096).write(to: directory.file("data"))
        let descriptor = open(directory.file("data").path, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        #expect(fsync(descriptor) == 0)
        switch system.extents(descriptor, 2 * 4096, 16) {
        case .extents(let ranges):
            #expect(ranges.first?.lowerBound == 0)
            #expect(ranges.last?.upperBound == 2 * 4096)
        case .tooMany:
            Issue.record("a file of three blocks in more than 16 extents")
        case .unknown:
            break
        }
    }

    @Test func anOrdinaryDirectoryIsNotAppendOnly() throws {
        let directory = try TemporaryDirectory()
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(descriptor) }
        #expect(!system.isAppendOnly(descriptor))
    }

    @Test func aDirectorysEntriesAndALinksTargetAreRead() throws {
        let directory = try TemporaryDirectory()
        try Data().write(to: directory.file("a"))
        #expect(symlink("a", directory.file("link").path) == 0)
        #expect(Set(system.directoryEntries(directory.path) ?? []).isSuperset(of: ["a", "link"]))
        #expect(system.readlink(directory.file("link").path) == "a")
        #expect(system.readlink(directory.file("a").path) == nil && errno == EINVAL)
        #expect(system.directoryEntries(directory.file("a").path) == nil)
    }
}
