import Foundation
import Persistible
import Testing

/// Special files, huge files, links, shared directories, long names and stuck locks.
@Suite struct HardeningTests {
    // MARK: - Special files

    @Test func aFIFOInPlaceOfTheFileIsRefusedWithoutWaiting() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("probe.json").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let answers = try Probe.run(["load", "save one", "delete", "load"], in: directory.path, within: 10)
        #expect(answers == [
            #"readFailed(operation: "open", errno: 22)"#,
            #"readFailed(operation: "open", errno: 22)"#,
            #"writeFailed(operation: "delete", errno: 22)"#,
            #"readFailed(operation: "open", errno: 22)"#,
        ])
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the FIFO is still there")
        #expect(try directory.contents() == ["probe.json"], "no lock file or temporary was made")
    }

    @Test func aHugeSparseFileIsRefusedWithATypedErrorAndKept() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("probe.json").path
        let size: Int64 = 64 << 30
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
        #expect(descriptor >= 0 && ftruncate(descriptor, off_t(size)) == 0)
        close(descriptor)
        let answers = try Probe.run(["load", "save one"], in: directory.path)
        let refusal = "fileTooLarge(size: \(size), limit: \(1 << 30))"
        #expect(answers == [refusal, refusal])
        var status = stat()
        #expect(stat(path, &status) == 0 && Int64(status.st_size) == size)
        #expect(try directory.temporaries() == [])
    }

    // MARK: - Deleting through a symbolic link

    enum LinkTarget: String, CaseIterable, Sendable {
        case fifo
        case directory
        case device
    }

    @Test(arguments: LinkTarget.allCases)
    func deleteFileRefusesALinkToAnythingButARegularFile(_ target: LinkTarget) throws {
        guard target != .device || geteuid() == 0 else {
            print("Skipped: making a device node needs root")
            return
        }
        let directory = try TemporaryDirectory()
        let elsewhere = directory.file("elsewhere")
        #expect(mkdir(elsewhere.path, 0o755) == 0)
        let node = elsewhere.appendingPathComponent("node").path
        switch target {
        case .fifo: #expect(mkfifo(node, 0o644) == 0)
        case .directory: #expect(mkdir(node, 0o755) == 0)
        // A copy of /dev/zero: character device 1, 5.
        case .device: #expect(mknod(node, S_IFCHR | 0o666, dev_t((1 << 8) | 5)) == 0)
        }
        #expect(symlink(node, directory.file("Note.json").path) == 0)

        let error = withArchiveDirectory(directory.url) { persistenceError { try Note.deleteFile() } }

        #expect(error?.reason == .writeFailed(operation: "delete", errno: target == .directory ? EISDIR : EINVAL))
        var status = stat()
        #expect(lstat(node, &status) == 0, "the link's target is still there")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == ["node"],
            "no lock file was made beside the target")
    }

    @Test func deleteFileThroughALinkToNothingMakesNoLockFile() throws {
        let directory = try TemporaryDirectory()
        let elsewhere = directory.file("elsewhere")
        #expect(mkdir(elsewhere.path, 0o755) == 0)
        #expect(symlink(elsewhere.appendingPathComponent("missing.json").path, directory.file("Note.json").path) == 0)
        try withArchiveDirectory(directory.url) { try Note.deleteFile() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [])
    }

    // MARK: - Temporaries

    @Test func cleaningUpOneFilesTemporariesLeavesAnotherFilesWhoseNameExtendsIt() throws {
        struct Record: Codable, Hashable, Persistible {
            var value: Int
            static var fileName: String { "rec" }
        }
        try inTemporaryDirectory { directory in
            // A temporary of "rec.json.persistible-1.json", and one that a writer of "rec.json" left.
            let others = directory.file(".rec.json.persistible-1.json.persistible-\(getppid())-0000000000abc.tmp")
            let own = directory.file(".rec.json.persistible-\(getppid())-0000000000abc.tmp")
            for url in [others, own] { try Data("partial".utf8).write(to: url) }
            // The empty lock file a writer of 0.1.0 made.
            try Data().write(to: directory.file("rec.json.lock"))

            try Record(value: 1).saveToFile()

            #expect(FileManager.default.fileExists(atPath: others.path))
            #expect(!FileManager.default.fileExists(atPath: own.path))
        }
    }

    /// The lock file's one byte says that no temporary of 0.1.0 is left beside the file: no later save reads the
    /// directory, however many files it holds.
    @Test func aSaveLeavesTheLockFileOneByteLong() throws {
        try inTemporaryDirectory { directory in
            try sam.saveToFile()
            #expect(try Data(contentsOf: directory.file("person_data.json.lock")) == Data([0]))
        }
    }

    /// Every write to the lock file costs the file system a transaction: a save makes none.
    @Test func aSaveWritesNothingToTheLockFile() throws {
        try inTemporaryDirectory { directory in
            try StressRecord(id: "first").saveToFile()
            let lock = directory.file("stress.json.lock").path
            var before = stat()
            #expect(stat(lock, &before) == 0)
            // The kernel stamps changes with a coarse clock: the saves go on until it has surely moved on, so that
            // a write among them would show in the change time.
            let clock = ContinuousClock()
            let start = clock.now
            var saves = 0
            while saves < 5 || clock.now - start < .milliseconds(50) {
                try StressRecord(id: "save \(saves)").saveToFile()
                saves += 1
            }
            var after = stat()
            #expect(stat(lock, &after) == 0)
            // The one byte the first save made it, once in its life.
            #expect(after.st_size == 1)
            #if canImport(Darwin)
            let (changedBefore, changedAfter) = (before.st_ctimespec, after.st_ctimespec)
            #else
            let (changedBefore, changedAfter) = (before.st_ctim, after.st_ctim)
            #endif
            #expect(changedAfter.tv_sec == changedBefore.tv_sec && changedAfter.tv_nsec == changedBefore.tv_nsec,
                "the lock file was changed by \(saves) saves")
            #expect(try StressRecord.loadListFromFile().count == saves + 1)
        }
    }

    @Test func aTemporaryLeftByAWriterThatDiedIsReplacedByTheNextSave() throws {
        try inTemporaryDirectory { directory in
            try StressRecord(id: "first").saveToFile()
            // What a writer killed in the middle of a save leaves: part of a file, here one nobody may even read.
            let left = directory.file(".stress.json.persistible.tmp")
            try Data("[{\"id\":\"par".utf8).write(to: left)
            #expect(chmod(left.path, 0) == 0)

            try StressRecord(id: "second").saveToFile()

            #expect(try StressRecord.loadListFromFile().map(\.id) == ["first", "second"])
            #expect(try directory.contents() == ["stress.json", "stress.json.lock"])
        }
    }

    @Test func aTemporaryThatCannotBeReplacedFailsTheSaveAndKeepsTheFile() throws {
        try inTemporaryDirectory { directory in
            try StressRecord(id: "first").saveToFile()
            let original = try Data(contentsOf: directory.file("stress.json"))
            // Not something a writer leaves: a directory in the temporary's place, which unlink refuses.
            #expect(mkdir(directory.file(".stress.json.persistible.tmp").path, 0o755) == 0)

            let error = persistenceError { try StressRecord(id: "second").saveToFile() }

            #expect(error?.reason == .writeFailed(operation: "remove abandoned temporary", errno: EISDIR))
            #expect(try Data(contentsOf: directory.file("stress.json")) == original)
            #expect(try directory.contents() == [".stress.json.persistible.tmp", "stress.json", "stress.json.lock"])
        }
    }

    @Test func deleteFileRemovesATemporaryLeftByAWriterThatDied() throws {
        try inTemporaryDirectory { directory in
            try StressRecord(id: "first").saveToFile()
            try Data("[{\"id\":\"par".utf8).write(to: directory.file(".stress.json.persistible.tmp"))

            try StressRecord.deleteFile()

            #expect(try directory.contents() == ["stress.json.lock"])
        }
    }

    // MARK: - Ownership and shared directories

    /// A group-writable setgid directory shared by root and another member of its group.
    private func sharedDirectory(in directory: borrowing TemporaryDirectory) throws -> URL {
        #expect(chmod(directory.path, 0o755) == 0)
        let shared = directory.file("shared")
        #expect(mkdir(shared.path, 0o755) == 0)
        #expect(chown(shared.path, 0, otherUser.gid) == 0)
        #expect(chmod(shared.path, 0o2775) == 0)
        return shared
    }

    /// A private directory of the other user's, inside a directory that user can reach.
    private func otherUsersDirectory(in directory: borrowing TemporaryDirectory) throws -> URL {
        #expect(chmod(directory.path, 0o755) == 0)
        let own = directory.file("own")
        #expect(mkdir(own.path, 0o700) == 0)
        #expect(chown(own.path, otherUser.uid, otherUser.gid) == 0)
        return own
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func anotherMemberOfTheGroupCanSaveInASharedDirectory() throws {
        let directory = try TemporaryDirectory()
        let shared = try sharedDirectory(in: directory)
        #expect(try Probe.run(["save root"], in: shared.path) == ["ok"])
        #expect(chmod(shared.appendingPathComponent("probe.json").path, 0o666) == 0)

        let answers = try Probe.run(["save member", "load"], in: shared.path, user: (otherUser.uid + 1, otherUser.gid))

        #expect(answers == ["ok", "root,member"])
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aUserCanStillSaveInTheirDirectoryAfterRootSavedThere() throws {
        let directory = try TemporaryDirectory()
        let home = try otherUsersDirectory(in: directory)
        #expect(try Probe.run(["save root"], in: home.path) == ["ok"])

        #expect(try Probe.run(["save user", "load"], in: home.path, user: otherUser) == ["ok", "root,user"])
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another owner"))
    func aRootOwnedPrivateFileInASetgidDirectoryKeepsItsGroup() throws {
        let directory = try TemporaryDirectory()
        let shared = try sharedDirectory(in: directory)
        try withArchiveDirectory(shared) {
            try sam.saveToFile()
            #expect(chown(Person.archiveUrl.path, 0, 0) == 0)
            #expect(chmod(Person.archiveUrl.path, 0o640) == 0)
            try amy.saveToFile()
            var status = stat()
            #expect(stat(Person.archiveUrl.path, &status) == 0)
            #expect(status.st_uid == 0 && status.st_gid == 0, "the directory's group was not given the file")
            #expect(status.st_mode & 0o7777 == 0o640)
        }
    }

    // MARK: - Flushing the directory

    /// Runs `body` with a probe acting as the other user in its own directory, after a first save there, and with the
    /// directory made writable and searchable but not readable, so that it cannot be opened to be flushed.
    private func withUnflushableDirectory(_ body: (Probe, URL) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writable = try otherUsersDirectory(in: directory)
        let probe = try Probe(directory: writable.path, user: otherUser)
        defer { probe.finish() }
        #expect(probe.send("save one") == "ok")
        #expect(chmod(writable.path, 0o300) == 0)
        try body(probe, writable)
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aDirectoryThatCannotBeFlushedSaysTheContentsAreInPlaceAndARetryFlushes() throws {
        try withUnflushableDirectory { probe, writable throws in
            let failed = #"writeFailed(operation: "fsync directory", errno: 13)"#
            #expect(probe.send("save two") == failed, "the rename is done, the flush is not")
            #expect(probe.send("save two") == failed, "a retry, with nothing to write, still owes the flush")
            #expect(chmod(writable.path, 0o700) == 0)
            #expect(probe.send("save two") == "ok")
            #expect(probe.send("load") == "one,two")

            let error = PersistenceError(
                .writeFailed(operation: "fsync directory", errno: EACCES), url: writable, typeName: "T")
            #expect(error.description.contains("The change is in place"))
        }
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aDeleteRetriedAfterAFailedDirectoryFlushStillFlushes() throws {
        try withUnflushableDirectory { probe, writable throws in
            let failed = #"writeFailed(operation: "fsync directory", errno: 13)"#
            #expect(probe.send("delete") == failed, "the file is removed, the flush is not done")
            #expect(probe.send("delete") == failed, "a retry, with nothing left to remove, still owes the flush")
            #expect(chmod(writable.path, 0o700) == 0)
            #expect(probe.send("delete") == "ok")
            #expect(try FileManager.default.contentsOfDirectory(atPath: writable.path) == ["probe.json.lock"])
        }
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aFileMovedAsideInADirectoryThatCannotBeFlushedSaysItWasMoved() throws {
        try withUnflushableDirectory { probe, writable throws in
            #expect(probe.send("moveaside") == #"writeFailed(operation: "fsync directory", errno: 13)"#)
            #expect(chmod(writable.path, 0o700) == 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: writable.path)
            #expect(!names.contains("probe.json"), "the file was moved: \(names)")
            #expect(names.contains { $0.hasPrefix("probe.moved-aside-") }, "\(names)")
            #expect(probe.send("save two") == "ok", "the next write flushes what is owed")
            #expect(probe.send("load") == "two")
        }
    }

    // MARK: - Moving aside what cannot be read

    @Test func aHugeSparseFileIsMovedAside() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("probe.json")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        #expect(truncate(file.path, 64 << 30) == 0)

        let answer = try Probe.run(["moveaside"], in: directory.path)

        #expect(answer.count == 1 && answer[0]?.hasPrefix("moved probe.unreadable-") == true, "\(answer)")
        #expect(try directory.contents().filter { $0.hasPrefix("probe.unreadable-") }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aFileThatTheWriterMayNotReadIsStillMovedAside() throws {
        let directory = try TemporaryDirectory()
        let writable = try otherUsersDirectory(in: directory)
        let file = writable.appendingPathComponent("probe.json")
        try Data(#"{"value":"root's"}"#.utf8).write(to: file)
        #expect(chmod(file.path, 0o600) == 0, "root's own file, which the other user may not read")

        let answer = try Probe.run(["moveaside"], in: writable.path, user: otherUser)

        #expect(answer.count == 1 && answer[0]?.hasPrefix("moved probe.unreadable-") == true, "\(answer)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    // MARK: - Group of a new file

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aSaveThatCannotKeepTheFilesGroupTakesAwayTheGroupsAccess() throws {
        let directory = try TemporaryDirectory()
        let writable = try otherUsersDirectory(in: directory)
        // New files take the directory's group, which the other user does not belong to either.
        let directoryGroup: gid_t = 4343, fileGroup: gid_t = 4242
        #expect(chown(writable.path, otherUser.uid, directoryGroup) == 0)
        #expect(chmod(writable.path, 0o2770) == 0)
        let probe = try Probe(directory: writable.path, user: otherUser)
        defer { probe.finish() }
        #expect(probe.send("save one") == "ok")
        let file = writable.appendingPathComponent("probe.json").path
        #expect(chown(file, otherUser.uid, fileGroup) == 0)
        #expect(chmod(file, 0o640) == 0)

        #expect(probe.send("save two") == "ok")

        var status = stat()
        #expect(stat(file, &status) == 0)
        #expect(status.st_uid == otherUser.uid && status.st_gid == directoryGroup, "the old group could not be kept")
        #expect(status.st_mode & 0o7777 == 0o600, "the new group may not read what the old one could")
    }

    // MARK: - Long names

    @Test func aFileNameOfTheLongestAllowedLengthAlwaysSaves() throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "n", count: 200)
        let answers = try Probe.run((0..<30).map { "save \($0)" } + ["delete"], in: directory.path,
            environment: ["PROBE_FILE_NAME": name])
        #expect(answers == Array(repeating: "ok", count: 31))
    }

    @Test(arguments: [201, 215, 245, 250])
    func aLongerFileNameIsRefusedUpFront(length: Int) throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "n", count: length)
        let answers = try Probe.run(["save one", "load", "delete"], in: directory.path,
            environment: ["PROBE_FILE_NAME": name])
        #expect(answers == Array(repeating: #"fileNameTooLong(name: "\#(name)", limit: 200)"#, count: 3))
        #expect(try directory.contents() == [])
    }

    @Test func aStoreFileWithTooLongANameIsRefusedUpFront() throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "s", count: 201) + ".json"
        let store = FileStore<Movie>(url: directory.file(name))
        #expect(persistenceError { try store.insert(alien) }?.reason == .fileNameTooLong(name: name, limit: 205))
        #expect(try directory.contents() == [])
    }

    // MARK: - Bounded lock waits

    struct Impatient: Codable, Hashable, Persistible {
        var value: Int
        static var fileName: String { "probe" }
        static var archiveLockTimeout: Duration? { .milliseconds(200) }
    }

    @Test func aSaveThatWaitsTooLongForTheLockNamesTheProcessHoldingIt() throws {
        let directory = try TemporaryDirectory()
        let holder = try Probe(directory: directory.path)
        defer { holder.finish() }
        #expect(holder.send("hold") == "locked")

        try withArchiveDirectory(directory.url) {
            let error = persistenceError { try Impatient(value: 1).saveToFile() }
            #expect(error?.reason == .lockHeld(processID: holder.processIdentifier))
            #expect(error?.description.contains("process \(holder.processIdentifier)") == true)
            let store = FileStore<Movie>(url: directory.file("probe.json"), lockTimeout: .milliseconds(100))
            #expect(persistenceError { try store.insert(alien) }?.reason == .lockHeld(processID: holder.processIdentifier))
            #expect(!FileManager.default.fileExists(atPath: Impatient.archiveUrl.path), "nothing was written")

            #expect(holder.nextLine(within: 0) == nil)
            holder.post("")
            #expect(holder.nextLine() == "released")
            try Impatient(value: 1).saveToFile()
            #expect(try Impatient.loadListFromFile() == [Impatient(value: 1)])
        }
    }

    @Test func aLockHeldByAnotherProgramIsReportedWithItsHolder() throws {
        try inTemporaryDirectory { directory in
            try Impatient(value: 1).saveToFile()
            // Another program's flock, which writes nothing into the lock file: here, this process's own.
            let descriptor = open(directory.file("probe.json.lock").path, O_RDONLY)
            defer { close(descriptor) }
            #expect(flock(descriptor, LOCK_EX) == 0)
            let error = persistenceError { try Impatient(value: 2).saveToFile() }
            #if os(Linux)
            #expect(error?.reason == .lockHeld(processID: getpid()))
            #else
            #expect(error?.reason == .lockHeld(processID: nil))
            #endif
        }
    }
}

/// A directory made append-only with `chattr +a`, where nothing can be renamed over or removed.
@Suite struct AppendOnlyDirectoryTests {
    @Test(.enabled(if: geteuid() == 0, "chattr +a needs root"))
    func aSaveInAnAppendOnlyDirectoryFailsBeforeMakingATemporary() throws {
        let directory = try TemporaryDirectory()
        try withArchiveDirectory(directory.url) { try sam.saveToFile() }
        let before = try Data(contentsOf: directory.file("person_data.json"))
        guard try ChildProcess.run("/usr/bin/chattr", ["+a", directory.path]).status == 0 else {
            print("Skipped: this file system does not support chattr +a")
            return
        }
        defer { _ = try? ChildProcess.run("/usr/bin/chattr", ["-a", directory.path]) }

        let error = withArchiveDirectory(directory.url) { persistenceError { try amy.saveToFile() } }

        #expect(error?.reason == .writeFailed(operation: "check append-only directory", errno: EPERM))
        #expect(try Data(contentsOf: directory.file("person_data.json")) == before)
        #expect(try directory.temporaries() == [])
    }
}
