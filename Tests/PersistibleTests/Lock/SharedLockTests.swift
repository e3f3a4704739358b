import Foundation
import Persistible
import Testing

/// Lock files, temporaries and lock waits where other users may write the directory: a sticky, world-writable one
/// like `/tmp`, a group's, a user's own that root saves in.
@Suite(.serialized) struct SharedLockTests {
    /// A user who puts files where others save, as anyone may in a sticky directory.
    private let intruder: (uid: UInt32, gid: UInt32) = (65534, 65534)

    /// A sticky, world-writable directory that every user can reach.
    private func stickyDirectory(in directory: borrowing TemporaryDirectory) -> URL {
        #expect(chmod(directory.path, 0o755) == 0)
        let sticky = directory.file("sticky")
        #expect(mkdir(sticky.path, 0o755) == 0)
        #expect(chmod(sticky.path, 0o1777) == 0)
        return sticky
    }

    /// A private directory of the other user's, inside a directory that user can reach.
    private func otherUsersDirectory(in directory: borrowing TemporaryDirectory, mode: mode_t = 0o700) -> URL {
        #expect(chmod(directory.path, 0o755) == 0)
        let own = directory.file("own")
        #expect(mkdir(own.path, 0o700) == 0)
        #expect(chown(own.path, otherUser.uid, otherUser.gid) == 0)
        #expect(chmod(own.path, mode) == 0)
        return own
    }

    /// Runs a program as `user`, with no supplementary groups, in a child process of its own.
    private func run(as user: (uid: UInt32, gid: UInt32), _ program: String, _ arguments: [String]) throws {
        let privileges = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups"]
        let result = try ChildProcess.run("/usr/bin/setpriv", privileges + [program] + arguments)
        #expect(result.status == 0, "\(program) \(arguments): \(result.errors)")
    }

    private func status(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    // MARK: - Lock files

    @Test(.enabled(if: geteuid() == 0, "acting as other users needs root"))
    func aLockFileMadeInAWorldWritableDirectoryCanBeTakenByNoOtherUser() throws {
        let directory = try TemporaryDirectory()
        let sticky = stickyDirectory(in: directory)
        let lock = sticky.appendingPathComponent("probe.json.lock").path
        #expect(try Probe.run(["save root's"], in: sticky.path) == ["ok"])
        #expect(status(lock).map { $0.st_mode & 0o7777 } == 0o600)

        let intruding = try Probe(directory: sticky.path, user: intruder)
        defer { intruding.finish() }
        let answer = intruding.send("hold")
        if answer == "locked" { intruding.post("") }

        #expect(answer == #"inTheWay(path: "\#(lock)", owner: 0)"#, "another user took the lock")
    }

    @Test(.enabled(if: geteuid() == 0, "acting as other users needs root"))
    func aLockFileAnotherUserPutInAStickyDirectoryIsInTheWayAndKeepsItsMode() throws {
        let directory = try TemporaryDirectory()
        let sticky = stickyDirectory(in: directory)
        let lock = sticky.appendingPathComponent("probe.json.lock").path
        try run(as: intruder, "/usr/bin/touch", [lock])
        let planted = try #require(status(lock))

        let answers = try Probe.run(["save root's"], in: sticky.path, environment: ["PROBE_DESCRIPTIONS": "1"])

        #expect(answers.first??.contains("'\(lock)' is in the way: owned by uid \(intruder.uid)") == true, "\(answers)")
        let after = try #require(status(lock))
        #expect(after.st_mode == planted.st_mode && after.st_uid == intruder.uid, "the planted file was changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sticky.path) == ["probe.json.lock"])
    }

    @Test(.enabled(if: geteuid() == 0, "acting as other users needs root"))
    func aLockFilePlantedAsASymbolicLinkIsInTheWay() throws {
        let directory = try TemporaryDirectory()
        let sticky = stickyDirectory(in: directory)
        let lock = sticky.appendingPathComponent("probe.json.lock").path
        let target = directory.file("target").path
        try run(as: intruder, "/usr/bin/ln", ["-s", target, lock])

        let answers = try Probe.run(["save root's"], in: sticky.path)

        #expect(answers == [#"inTheWay(path: "\#(lock)", owner: \#(intruder.uid))"#])
        #expect(status(target) == nil, "nothing was made where the link points")
        #expect(status(lock).map { $0.st_mode & S_IFMT } == S_IFLNK)
    }

    /// A group's directory, where a member's hard link to a private file of theirs stands at the lock's path: a save
    /// by root uses it, as any member's lock file, but leaves its mode alone.
    @Test(.enabled(if: geteuid() == 0, "acting as other users needs root"))
    func aSaveNeverChangesTheModeOfALockFileItDidNotMake() throws {
        let directory = try TemporaryDirectory()
        let shared = otherUsersDirectory(in: directory, mode: 0o2775)
        let secret = shared.appendingPathComponent("secret").path
        let lock = shared.appendingPathComponent("probe.json.lock").path
        try run(as: otherUser, "/usr/bin/install", ["-m", "600", "/dev/null", secret])
        try run(as: otherUser, "/usr/bin/ln", [secret, lock])

        #expect(try Probe.run(["save root's", "load"], in: shared.path) == ["ok", "root's"])

        let after = try #require(status(secret))
        #expect(after.st_mode & 0o7777 == 0o600, "the private file was opened up")
        #expect(after.st_size == 0, "the private file was written")
        #expect(after.st_uid == otherUser.uid && after.st_nlink == 2)
    }

    /// A failed save into a directory made read-only left a lock file of mode 0000, which every later save, once the
    /// directory was writable again, failed to open.
    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aSaveIntoAReadOnlyDirectoryLeavesTheLockFileUsable() throws {
        let directory = try TemporaryDirectory()
        let own = otherUsersDirectory(in: directory)
        let probe = try Probe(directory: own.path, user: otherUser)
        defer { probe.finish() }
        #expect(probe.send("save one") == "ok")
        #expect(chmod(own.path, 0o500) == 0)
        #expect(probe.send("save two") == #"writeFailed(operation: "create temporary file", errno: 13)"#)
        #expect(chmod(own.path, 0o700) == 0)

        #expect(probe.send("save three") == "ok")
        #expect(probe.send("load") == "one,three")
        #expect(status(own.appendingPathComponent("probe.json.lock").path).map { $0.st_mode & 0o7777 } == 0o600)
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func anErrorAboutTheLockNamesTheLockFile() throws {
        let directory = try TemporaryDirectory()
        let own = otherUsersDirectory(in: directory)
        let lock = own.appendingPathComponent("probe.json.lock").path
        let probe = try Probe(directory: own.path, user: otherUser, environment: ["PROBE_DESCRIPTIONS": "1"])
        defer { probe.finish() }
        #expect(probe.send("save one") == "ok")
        // As an earlier version left it.
        #expect(chmod(lock, 0) == 0)

        let answer = try #require(probe.send("save two"))

        #expect(answer.contains("(open lock file '\(lock)'): Permission denied."), "\(answer)")
    }

    // MARK: - Temporaries

    @Test(.enabled(if: geteuid() == 0, "acting as other users needs root"))
    func aTemporaryAnotherUserPutInAStickyDirectoryIsReportedAsInTheWay() throws {
        let directory = try TemporaryDirectory()
        let sticky = stickyDirectory(in: directory)
        let probe = try Probe(directory: sticky.path, user: otherUser)
        defer { probe.finish() }
        #expect(probe.send("save one") == "ok")
        let temporary = sticky.appendingPathComponent(".probe.json.persistible.tmp").path
        try run(as: intruder, "/usr/bin/touch", [temporary])

        #expect(probe.send("save two") == #"inTheWay(path: "\#(temporary)", owner: \#(intruder.uid))"#)
        #expect(probe.send("load") == "one")
    }

    // MARK: - Waiting for the lock

    /// The type the probe saves, with the default lock timeout.
    private struct Patient: Codable, Hashable, Persistible {
        var value: String
        static var fileName: String { "probe" }
    }

    /// The waits run on threads of their own, so that the test holds none of the pool's while they last.
    @Test func aWriteGivesUpOnALockHeldForeverAndNamesItsHolder() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url
        let holder = try Probe(directory: directory.path)
        defer { holder.finish() }
        #expect(holder.send("hold") == "locked")
        let holding = holder.processIdentifier

        // A type's save and a store's insert, each with its default wait, at once. Were the wait endless, the holder
        // is killed after 90 seconds, and the writes succeed: the test fails, not hangs.
        async let saveError = onAThread(killing: holding) {
            withArchiveDirectory(url) { persistenceError { try Patient(value: "one").saveToFile() } }
        }
        async let storeError = onAThread(killing: holding) {
            let store = FileStore<Patient>(url: url.appendingPathComponent("probe.json"))
            return persistenceError { try store.insert(Patient(value: "two")) }
        }
        let errors = await [saveError, storeError]

        #expect(errors.map(\.?.reason) == [.lockHeld(processID: holding), .lockHeld(processID: holding)])
        let lock = directory.file("probe.json.lock").path
        for error in errors {
            let description = error?.description ?? ""
            #expect(description.contains("process \(holding) (PersistibleProb) held its lock, '\(lock)',"),
                "\(description)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("probe.json").path), "nothing was written")
    }

    /// Runs `body` on a new thread, and kills process `holder` if it has not returned within 90 seconds.
    private func onAThread(
        killing holder: Int32, _ body: @escaping @Sendable () -> PersistenceError?
    ) async -> PersistenceError? {
        await withCheckedContinuation { continuation in
            let returned = DispatchSemaphore(value: 0)
            Thread {
                if returned.wait(timeout: .now() + 90) == .timedOut { kill(holder, SIGKILL) }
            }.start()
            Thread {
                let error = body()
                returned.signal()
                continuation.resume(returning: error)
            }.start()
        }
    }

    // MARK: - Threads

    @Test(.enabled(if: geteuid() == 0, "a limit of threads binds users other than root"))
    func anAsyncCallThatCannotStartAThreadThrows() throws {
        let directory = try TemporaryDirectory()
        let own = otherUsersDirectory(in: directory)

        let answers = try Probe.run(["insert-without-threads one"], in: own.path, user: otherUser)

        #expect(answers == [#"writeFailed(operation: "start thread", errno: \#(EAGAIN))"#], "the probe trapped")
    }
}
