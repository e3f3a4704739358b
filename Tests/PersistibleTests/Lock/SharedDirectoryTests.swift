import Foundation
import Testing

@testable import Persistible

/// Another user of the machine, in a directory both can write, chooses nothing a save touches and reads nothing it
/// writes: links, planted files, FIFOs, ACLs and new directories.
@Suite struct SharedDirectoryTests {
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
}
