import Foundation
import Testing

@testable import Persistible

/// Another user of the machine, in a directory both can write, chooses nothing a save touches and reads nothing it
/// writes: links, planted files, FIFOs, ACLs and new directories. Serialized: most drive child processes, which
/// hold a thread of the cooperative pool each while they wait, and the pool has as many threads as cores.
@Suite(.serialized) struct SharedDirectoryTests {
    /// A user who plants things, apart from the one the tests act as.
    private let attacker: (uid: UInt32, gid: UInt32) = (otherUser.uid + 1, otherUser.gid)

    /// A sticky, world-writable directory owned by root, as `/tmp` is, that every user can reach.
    private func stickyDirectory(in directory: borrowing TemporaryDirectory) -> URL {
        #expect(chmod(directory.path, 0o755) == 0)
        let shared = directory.file("shared")
        #expect(mkdir(shared.path, 0o755) == 0)
        #expect(chmod(shared.path, 0o1777) == 0)
        return shared
    }

    /// A directory of `owner`'s alone, holding `precious.json`.
    private func privateDirectory(
        _ name: String, of owner: (uid: UInt32, gid: UInt32), in directory: borrowing TemporaryDirectory
    ) throws -> URL {
        let own = directory.file(name)
        #expect(mkdir(own.path, 0o700) == 0)
        try Data("[{\"value\":\"precious\"}]\n".utf8).write(to: own.appendingPathComponent("precious.json"))
        #expect(chown(own.appendingPathComponent("precious.json").path, owner.uid, owner.gid) == 0)
        #expect(chown(own.path, owner.uid, owner.gid) == 0)
        return own
    }

    /// A symbolic link at `link` to `target`, owned by `owner`, as if that user had made it.
    private func plantLink(_ link: URL, to target: String, by owner: (uid: UInt32, gid: UInt32)) {
        #expect(symlink(target, link.path) == 0)
        #expect(lchown(link.path, owner.uid, owner.gid) == 0)
    }

    /// The answer for a refused link; one on the way to the directory is named as the walk to it spells it.
    private func refusal(_ link: URL, owner: UInt32, onTheWay: Bool = false) -> String {
        let path = onTheWay ? link.path.replacingOccurrences(of: "//", with: "/") : link.path
        return "linkNotFollowed(link: \"\(path)\", owner: \(owner))"
    }

    private func status(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    // MARK: - Links

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func rootFollowsNoLinkThatAnotherUserPlantedInAStickyDirectory() throws {
        let directory = try TemporaryDirectory()
        let shared = stickyDirectory(in: directory)
        let own = try privateDirectory("own", of: (0, 0), in: directory)
        let precious = own.appendingPathComponent("precious.json")
        let link = shared.appendingPathComponent("probe.json")
        plantLink(link, to: precious.path, by: attacker)

        let answers = try Probe.run(["save secret", "load", "delete", "moveaside"], in: shared.path)

        #expect(answers == Array(repeating: refusal(link, owner: attacker.uid), count: 4))
        #expect(try String(contentsOf: precious, encoding: .utf8) == "[{\"value\":\"precious\"}]\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path) == ["precious.json"],
            "no lock file, temporary or moved file beside the target")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path) == ["probe.json"])
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aSaveThroughARefusedLinkMakesNoneOfTheMissingDirectories() throws {
        let directory = try TemporaryDirectory()
        let shared = stickyDirectory(in: directory)
        let own = try privateDirectory("own", of: (0, 0), in: directory)
        let link = shared.appendingPathComponent("probe.json")
        plantLink(link, to: own.appendingPathComponent("cron.d/sub/job").path, by: attacker)

        #expect(try Probe.run(["save job"], in: shared.path) == [refusal(link, owner: attacker.uid)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path) == ["precious.json"])
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func anOrdinaryUserFollowsNoLinkThatAnotherUserPlantedInAStickyDirectory() throws {
        let directory = try TemporaryDirectory()
        let shared = stickyDirectory(in: directory)
        let own = try privateDirectory("own", of: otherUser, in: directory)
        let precious = own.appendingPathComponent("precious.json")
        let link = shared.appendingPathComponent("probe.json")
        plantLink(link, to: precious.path, by: attacker)

        let answers = try Probe.run(["delete", "save mine", "moveaside"], in: shared.path, user: otherUser)

        #expect(answers == Array(repeating: refusal(link, owner: attacker.uid), count: 3))
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path) == ["precious.json"])
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aLinkOnTheWayToTheDirectoryIsHeldToTheSameRule() throws {
        let directory = try TemporaryDirectory()
        let shared = stickyDirectory(in: directory)
        let own = try privateDirectory("own", of: (0, 0), in: directory)
        let link = shared.appendingPathComponent("app")
        plantLink(link, to: own.path, by: attacker)

        let answers = try Probe.run(["save secret", "load", "delete"], in: link.path)

        #expect(answers == Array(repeating: refusal(link, owner: attacker.uid, onTheWay: true), count: 3))
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path) == ["precious.json"])
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aLinkOfTheFollowersOwnOrOfTheDirectorysOwnerIsFollowed() throws {
        let directory = try TemporaryDirectory()
        let shared = stickyDirectory(in: directory)
        let own = try privateDirectory("own", of: otherUser, in: directory)
        let precious = own.appendingPathComponent("precious.json")
        // The user's own link, and one that root, the sticky directory's owner, made for them.
        plantLink(shared.appendingPathComponent("probe.json"), to: precious.path, by: otherUser)
        plantLink(shared.appendingPathComponent("given.json"), to: precious.path, by: (0, 0))

        #expect(try Probe.run(["save mine", "load"], in: shared.path, user: otherUser) == ["ok", "precious,mine"])
        let answers = try Probe.run(
            ["save given", "load"], in: shared.path, user: otherUser, environment: ["PROBE_FILE_NAME": "given"]
        )
        #expect(answers == ["ok", "precious,mine,given"])
        #expect(status(shared.appendingPathComponent("probe.json").path)?.isSymbolicLink == true)
    }

    /// A dotfiles manager links `~/.config/app/Settings.json` into a repository, and may link the whole directory.
    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func aDotfilesManagersLinksKeepWorking() throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let home = directory.file("home")
        let repository = home.appendingPathComponent("dotfiles/app")
        let config = home.appendingPathComponent(".config")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: config.appendingPathComponent("app"), withIntermediateDirectories: true
        )
        #expect(symlink(repository.appendingPathComponent("probe.json").path,
            config.appendingPathComponent("app/probe.json").path) == 0)
        #expect(symlink("../dotfiles/app", config.appendingPathComponent("linked").path) == 0)
        for path in ["", "dotfiles", "dotfiles/app", ".config", ".config/app", ".config/app/probe.json",
            ".config/linked"]
        {
            #expect(lchown(home.appendingPathComponent(path).path, otherUser.uid, otherUser.gid) == 0)
        }

        let app = config.appendingPathComponent("app").path
        #expect(try Probe.run(["save one", "load"], in: app, user: otherUser) == ["ok", "one"])
        let linked = config.appendingPathComponent("linked").path
        #expect(try Probe.run(["save two", "load"], in: linked, user: otherUser) == ["ok", "one,two"])

        #expect(status(config.appendingPathComponent("app/probe.json").path)?.isSymbolicLink == true)
        let stored = try String(contentsOf: repository.appendingPathComponent("probe.json"), encoding: .utf8)
        #expect(stored.contains("two"))
        let deleted = try Probe.run(["delete", "load"], in: app, user: otherUser)
        #expect(deleted == ["ok", "fileNotFound"])
        #expect(status(repository.appendingPathComponent("probe.json").path) == nil, "the linked file was deleted")
    }

    // MARK: - Owner and mode

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func rootSavingOverAFilePlantedInAStickyDirectoryKeepsItsSecret() throws {
        let directory = try TemporaryDirectory()
        let shared = stickyDirectory(in: directory)
        let file = shared.appendingPathComponent("probe.json").path
        let planted = try Probe.run(["save planted"], in: shared.path, user: attacker, environment: ["PROBE_UMASK": "022"])
        #expect(planted == ["ok"])
        #expect(status(file).map { ($0.st_uid, $0.st_mode & 0o7777) } ?? (0, 0) == (attacker.uid, 0o644))
        // The file alone is planted: a lock file of the attacker's would be in the way of any save (SharedLockTests).
        try FileManager.default.removeItem(atPath: file + ".lock")

        #expect(try Probe.run(["save secret"], in: shared.path, environment: ["PROBE_UMASK": "077"]) == ["ok"])

        let saved = try #require(status(file))
        #expect(saved.st_uid == 0 && saved.st_gid == 0, "the file is root's, not the planter's")
        #expect(saved.st_mode & 0o7777 == 0o600, "the mode root's umask gives")
    }

    @Test(.enabled(if: geteuid() == 0, "acting as another user needs root"))
    func rootEditingAUsersFileInTheirOwnDirectoryKeepsTheirOwnerAndMode() throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let home = directory.file("home")
        #expect(mkdir(home.path, 0o700) == 0)
        #expect(chown(home.path, otherUser.uid, otherUser.gid) == 0)
        let file = home.appendingPathComponent("probe.json").path
        #expect(try Probe.run(["save one"], in: home.path, user: otherUser, environment: ["PROBE_UMASK": "027"])
            == ["ok"])

        #expect(try Probe.run(["save two"], in: home.path, environment: ["PROBE_UMASK": "077"]) == ["ok"])

        let saved = try #require(status(file))
        #expect(saved.st_uid == otherUser.uid && saved.st_gid == otherUser.gid)
        #expect(saved.st_mode & 0o7777 == 0o640)
    }

    // MARK: - ACLs

    /// `user::rw-`, `user:65534:rw-`, `group::---`, `mask::rw-`, `other::---`: the mode bits show 0660, but the
    /// owning group may do nothing.
    private static let groupDeniedACL: [UInt8] = {
        var bytes: [UInt8] = [2, 0, 0, 0]
        for (tag, permissions, id) in [(0x01, 6, UInt32.max), (0x02, 6, 65534), (0x04, 0, .max), (0x10, 6, .max),
            (0x20, 0, .max)] as [(UInt16, UInt16, UInt32)]
        {
            withUnsafeBytes(of: tag.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: permissions.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: id.littleEndian) { bytes += $0 }
        }
        return bytes
    }()

    private static let aclName = "system.posix_acl_access"

    // getxattr(2) and setxattr(2), whose header the C library's module does not import.
    private typealias GetAttribute = @convention(c) (
        UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int
    ) -> Int
    private typealias SetAttribute = @convention(c) (
        UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer, Int, Int32
    ) -> Int32

    private func function<Function>(_ name: String, as type: Function.Type) throws -> Function {
        unsafeBitCast(try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)), to: type)
    }

    private func acl(of path: String) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 256)
        let length = try function("getxattr", as: GetAttribute.self)(path, Self.aclName, &bytes, bytes.count)
        return length < 0 ? nil : Array(bytes[..<length])
    }

    /// Saves a note, gives it the ACL that denies its group, and saves again with `calls`.
    private func saveOverAGroupDeniedFile(
        with calls: SystemCalls = .live, _ check: (String) throws -> Void
    ) throws {
        try inTemporaryDirectory { _ in
            try Note(text: "one").saveToFile()
            let path = Note.archiveUrl.path
            let setAttribute = try function("setxattr", as: SetAttribute.self)
            guard setAttribute(path, Self.aclName, Self.groupDeniedACL, Self.groupDeniedACL.count, 0) == 0 else {
                print("Skipped: this file system has no POSIX ACLs (\(String(cString: strerror(errno))))")
                return
            }
            #expect(status(path).map { $0.st_mode & 0o7777 } == 0o660)
            try SystemCalls.$current.withValue(calls) { try Note(text: "two").saveToFile() }
            #expect(try Note.loadListFromFile() == [Note(text: "one"), Note(text: "two")])
            try check(path)
        }
    }

    @Test func aSaveKeepsTheFilesACL() throws {
        try saveOverAGroupDeniedFile { path in
            let list = try acl(of: path)
            #expect(list == Self.groupDeniedACL)
            #expect(status(path).map { $0.st_mode & 0o7777 } == 0o660)
        }
    }

    @Test func aSaveThatCannotKeepTheACLTakesAwayWhatItDenied() throws {
        var calls = SystemCalls.live
        calls.setAccessControlList = { _, _ in
            errno = EPERM
            return -1
        }
        try saveOverAGroupDeniedFile(with: calls) { path in
            let list = try acl(of: path)
            #expect(list == nil)
            #expect(status(path).map { $0.st_mode & 0o7777 } == 0o600, "the group was denied, so is it now")
        }
    }

    // MARK: - New directories

    @Test func directoriesASaveMakesAreTheUsersAlone() throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let nested = directory.file("made/deeper")

        let answers = try Probe.run(["save one"], in: nested.path, environment: ["PROBE_UMASK": "022"])

        #expect(answers == ["ok"])
        #expect(status(directory.file("made").path).map { $0.st_mode & 0o7777 } == 0o700)
        #expect(status(nested.path).map { $0.st_mode & 0o7777 } == 0o700)
        #expect(status(directory.path).map { $0.st_mode & 0o7777 } == 0o755, "a directory that was there is as it was")
        #expect(status(nested.appendingPathComponent("probe.json").path).map { $0.st_mode & 0o7777 } == 0o644)
    }

    // MARK: - FIFOs

    /// The file swapped for a FIFO once the save has checked it under the lock: the save's next open of the file
    /// must not wait for a writer. The swap happens when the save opens the directory to write into it.
    @Test func aFIFOSwappedInDuringAnAppendFailsTheSaveWithoutWaiting() throws {
        try inTemporaryDirectory { directory in
            // Large enough that the append would clone the blocks it keeps, which opens the file.
            try (0..<200).map { Note(text: String(repeating: "x", count: 40) + "\($0)") }.saveToFile()
            let file = Note.archiveUrl.path
            let fifo = directory.file("fifo").path
            #expect(mkfifo(fifo, 0o644) == 0)
            let swapped = Locked(false)
            var live = SystemCalls.live
            // A device of its own, which no earlier refusal to clone was remembered for.
            let device = UInt64.random(in: 1 << 40..<1 << 48)
            live.fstat = { descriptor, status in
                let result = SystemCalls.live.fstat(descriptor, &status)
                status.st_dev = .init(truncatingIfNeeded: device)
                return result
            }
            live.lstat = { path, status in
                let result = SystemCalls.live.lstat(path, &status)
                status.st_dev = .init(truncatingIfNeeded: device)
                return result
            }
            live.open = { path, flags, mode in
                if flags & O_DIRECTORY != 0, swapped.withLock({ done in defer { done = true }; return !done }) {
                    rename(fifo, file)
                }
                return SystemCalls.live.open(path, flags, mode)
            }
            let calls = live
            let outcome = Locked<PersistenceError.Reason??>(nil)
            let finished = DispatchSemaphore(value: 0)
            let url = directory.url
            // A thread of its own, which the test can wait for a while and then release.
            let saving = Thread {
                let error = withArchiveDirectory(url) {
                    SystemCalls.$current.withValue(calls) { persistenceError { try Note(text: "new").saveToFile() } }
                }
                outcome.withLock { $0 = .some(error?.reason) }
                finished.signal()
            }
            saving.start()
            let returned = finished.wait(timeout: .now() + 10) == .success
            if !returned {
                // Releases the save from the FIFO's open, so that the test fails rather than hangs.
                let writer = open(file, O_WRONLY | O_NONBLOCK)
                finished.wait()
                close(writer)
            }
            #expect(returned, "the save waited for a writer to open the FIFO")
            #expect(swapped.withLock { $0 }, "the FIFO was swapped in")
            #expect(outcome.withLock { $0 } == .some(.readFailed(operation: "open", errno: EINVAL)))
            #expect(status(file).map { $0.st_mode & S_IFMT } == S_IFIFO, "the FIFO is still there")
            #expect(try directory.temporaries() == [])
        }
    }
}
