import Foundation
import Persistible
import Testing

/// Watching a file that other processes change. Serialized, so that the tests that count the process's watch
/// descriptors and threads see only their own.
@Suite(.serialized) struct WatchingTests {
    let a = Watched(name: "a", number: 1)
    let b = Watched(name: "b", number: 2)

    /// A watcher of `Watched`'s file in `directory`, after checking that its first element is what the file holds.
    private func watch(
        _ directory: borrowing TemporaryDirectory, detection: ChangeDetection = .events
    ) async throws -> Watcher<ArchiveChange<Watched>> {
        let changes = withArchiveDirectory(directory.url) { Watched.changes(detection: detection) }
        var watcher = Watcher(changes)
        let first = await watcher.next()
        let expected = try withArchiveDirectory(directory.url) { () -> ArchiveChange<Watched> in
            FileManager.default.fileExists(atPath: Watched.archiveUrl.path) ? .contents(try Watched.load()) : .noFile
        }
        #expect(first == expected, "the first element is what the file holds")
        return watcher
    }

    @Test func theFirstElementSaysThereIsNoFileThenShowsTheFirstSave() async throws {
        let directory = try TemporaryDirectory()
        var watcher = try await watch(directory)
        #expect(watcher.received == [.noFile])
        try await change("save", directory.path, "a", "1")
        #expect(await watcher.next() == .contents(.single(a)))
        await watcher.stop()
    }

    @Test func aDirectoryThatTheFirstSaveCreatesIsWatchedFromItsParent() async throws {
        let root = try TemporaryDirectory()
        let directory = root.url.appendingPathComponent("not/yet", isDirectory: true)
        var watcher = Watcher(withArchiveDirectory(directory) { Watched.changes() })
        #expect(await watcher.next() == .noFile)
        if WatchResources.countable {
            #expect(WatchResources.inotifyDescriptors == 1, "watched by events, not by the polling fallback")
        }
        try await change("save", directory.path, "a", "1")
        #expect(await watcher.next { $0 == .contents(.single(a)) } != nil, "saw \(watcher.received)")
        try await change("save", directory.path, "b", "2")
        #expect(await watcher.next { $0 == .contents(.array([a, b])) } != nil, "saw \(watcher.received)")
        await watcher.stop()
    }

    @Test func aDirectoryDeletedAndMadeAgainIsWatchedAgain() async throws {
        let root = try TemporaryDirectory()
        let directory = root.url.appendingPathComponent("inner", isDirectory: true)
        try withArchiveDirectory(directory) { try a.saveToFile() }
        var watcher = Watcher(withArchiveDirectory(directory) { Watched.changes() })
        #expect(await watcher.next() == .contents(.single(a)))
        try FileManager.default.removeItem(at: directory)
        #expect(await watcher.next { $0 == .noFile } != nil, "saw \(watcher.received)")
        try await change("save", directory.path, "b", "2")
        #expect(await watcher.next { $0 == .contents(.single(b)) } != nil, "saw \(watcher.received)")
        if WatchResources.countable {
            #expect(WatchResources.inotifyDescriptors == 1, "still watched by events")
        }
        await watcher.stop()
    }

    enum Kind: String, CaseIterable, Sendable {
        case save, insert, replace, remove, delete, aside, moveFileAside, rename, overwrite
    }

    @Test(arguments: Kind.allCases)
    func eachKindOfChangeByAnotherProcessIsSeenWithinASecond(_ kind: Kind) async throws {
        let directory = try TemporaryDirectory()
        try withArchiveDirectory(directory.url) { try a.saveToFile() }
        var watcher = try await watch(directory)
        let expected: ArchiveChange<Watched>
        switch kind {
        case .save:
            try await change("save", directory.path, "b", "2")
            expected = .contents(.array([a, b]))
        case .insert:
            try await change("insert", directory.path, "b", "2")
            expected = .contents(.array([a, b]))
        case .replace:
            try await change("replace", directory.path, "c", "3")
            expected = .contents(.single(Watched(name: "c", number: 3)))
        case .remove:
            try await change("remove", directory.path, "a")
            expected = .contents(.array([]))
        case .delete:
            try await change("delete", directory.path)
            expected = .noFile
        case .aside:
            try await change("aside", directory.path)
            expected = .noFile
        case .moveFileAside:
            try await change("moveaside", directory.path)
            expected = .noFile
        case .rename:
            try await change("rename", directory.path, #"{"name": "edited", "number": 7}"#)
            expected = .contents(.single(Watched(name: "edited", number: 7)))
        case .overwrite:
            try await change("overwrite", directory.path, #"[{"name": "in place", "number": 8}]"#)
            expected = .contents(.array([Watched(name: "in place", number: 8)]))
        }
        let seen = await watcher.next(within: .seconds(1)) { $0 == expected }
        #expect(seen == expected, "saw \(watcher.received)")
        await watcher.stop()
    }

    @Test func aSaveByThisProcessIsSeen() async throws {
        let directory = try TemporaryDirectory()
        var watcher = try await watch(directory)
        try withArchiveDirectory(directory.url) {
            try a.saveToFile()
            try b.saveToFile()
        }
        #expect(await watcher.next { $0 == .contents(.array([a, b])) } != nil, "saw \(watcher.received)")
        await watcher.stop()
    }

    @Test func aSymbolicLinkPointedAtAnotherFileIsFollowed() async throws {
        let directory = try TemporaryDirectory()
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let link = directory.file("watched.json").path
        try withArchiveDirectory(first.url) { try a.saveToFile() }
        try withArchiveDirectory(second.url) { try b.saveToFile() }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first.file("watched.json").path)
        var watcher = try await watch(directory)
        #expect(watcher.received == [.contents(.single(a))])

        // A save through the link replaces the file in the first directory.
        try await change("save", directory.path, "c", "3")
        let c = Watched(name: "c", number: 3)
        #expect(await watcher.next { $0 == .contents(.array([a, c])) } != nil, "saw \(watcher.received)")

        try await change("link", link, second.file("watched.json").path)
        #expect(await watcher.next { $0 == .contents(.single(b)) } != nil, "saw \(watcher.received)")

        // Now the second directory is the one whose changes count.
        try await change("save", directory.path, "d", "4")
        let d = Watched(name: "d", number: 4)
        #expect(await watcher.next { $0 == .contents(.array([b, d])) } != nil, "saw \(watcher.received)")
        await watcher.stop()
    }

    @Test func aRelativeLinkOutOfALinkedDirectoryIsFollowedAsTheSystemReadsIt() async throws {
        // link -> real/data, and link/watched.json -> ../shared/watched.json, which the system reads from the
        // directory the link leads to: real/shared/watched.json.
        let root = try TemporaryDirectory()
        let files = FileManager.default
        let (data, shared) = (root.file("real/data"), root.file("real/shared"))
        try files.createDirectory(at: data, withIntermediateDirectories: true)
        try files.createDirectory(at: shared, withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: root.file("link").path, withDestinationPath: data.path)
        try files.createSymbolicLink(atPath: data.path + "/watched.json", withDestinationPath: "../shared/watched.json")
        try withArchiveDirectory(shared) { try a.saveToFile() }
        let changes = withArchiveDirectory(root.file("link")) { Watched.changes() }
        var watcher = Watcher(changes)
        #expect(await watcher.next() == .contents(.single(a)))

        try await change("save", shared.path, "c", "3")
        let c = Watched(name: "c", number: 3)
        #expect(await watcher.next { $0 == .contents(.array([a, c])) } != nil, "saw \(watcher.received)")
        await watcher.stop()
    }

    @Test func aBurstOfAThousandSavesIsSeenToItsFinalState() async throws {
        let directory = try TemporaryDirectory()
        var watcher = try await watch(directory)
        let started = ContinuousClock.now
        try await change("burst", directory.path, "1000")
        let elapsed = ContinuousClock.now - started
        let final = await watcher.next { (try? $0.values().count) == 1000 }
        #expect((try? final?.values()) == (1...1000).map { Watched(name: "burst", number: $0) })
        // Coalesced: at most one read per interval while the burst lasted, plus the first and the last.
        let bound = Int(elapsed / ChangeDetection.defaultCoalescingInterval) + 3
        #expect(watcher.received.count <= bound, "\(watcher.received.count) elements for a burst of \(elapsed)")
        await watcher.stop()
    }

    @Test func aConsumerThatFallsBehindReceivesOnlyTheLatestState() async throws {
        let directory = try TemporaryDirectory()
        let changes = withArchiveDirectory(directory.url) { Watched.changes() }
        let path = directory.path
        // The iterator is not asked for anything while the burst runs: if it queued states, the next one would be
        // the burst's first save, not its last.
        let afterBurst = await withTaskGroup(of: ArchiveChange<Watched>?.self) { group in
            group.addTask {
                var iterator = changes.makeAsyncIterator()
                guard await iterator.next() == .noFile else { return nil }
                guard (try? await change("burst", path, "1000")) != nil else { return nil }
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect((try? afterBurst?.values().count) == 1000)
    }

    @Test func anUnreadableFileIsReportedThenTheRepairSeen() async throws {
        let directory = try TemporaryDirectory()
        try withArchiveDirectory(directory.url) { try a.saveToFile() }
        var watcher = try await watch(directory)

        try await change("overwrite", directory.path, "not json")
        let broken = await watcher.next { if case .failure = $0 { true } else { false } }
        guard case .failure(let error) = broken else {
            Issue.record("no failure seen: \(watcher.received)")
            return
        }
        let loadError = withArchiveDirectory(directory.url) { persistenceError { _ = try Watched.load() } }
        #expect(error == loadError, "the element holds what a load throws")
        if case .unreadable = error.reason {} else { Issue.record("not unreadable: \(error)") }

        try await change("rename", directory.path, #"{"name": "repaired", "number": 9}"#)
        let repaired = ArchiveChange<Watched>.contents(.single(Watched(name: "repaired", number: 9)))
        #expect(await watcher.next { $0 == repaired } != nil, "saw \(watcher.received)")
        await watcher.stop()
    }

    /// An edit that puts back the file's size, inode and modification time, after a save by this process that the
    /// watch's read remembers: only the change time tells the new contents, with events and with polling.
    @Test(arguments: [ChangeDetection.events, .polling(every: .milliseconds(50))], EditKeepingStatus.allCases)
    func anEditThatPutsBackTheFilesStatusIsSeen(_ detection: ChangeDetection, _ edit: EditKeepingStatus) async throws {
        let directory = try TemporaryDirectory()
        try withArchiveDirectory(directory.url) { try a.saveToFile() }
        var watcher = try await watch(directory, detection: detection)
        let path = directory.file("watched.json").path
        let stored = try Data(contentsOf: URL(fileURLWithPath: path))
        try directory.edit(path, to: stored.replacing(Data(#""a""#.utf8), with: Data(#""z""#.utf8)), by: edit)
        let edited = Watched(name: "z", number: 1)
        #expect(await watcher.next { $0 == .contents(.single(edited)) } != nil, "saw \(watcher.received)")
        await watcher.stop()
    }

    @Test(.enabled(if: WatchResources.countable, "counts inotify descriptors in /proc"))
    func pollingSeesAnotherProcessSaveWithoutInotify() async throws {
        #expect(await WatchResources.settle(descriptors: 0, threads: 0))
        let directory = try TemporaryDirectory()
        var watcher = try await watch(directory, detection: .polling(every: .milliseconds(50)))
        #expect(WatchResources.inotifyDescriptors == 0, "polling opens no inotify instance")
        try await change("save", directory.path, "a", "1")
        #expect(await watcher.next { $0 == .contents(.single(a)) } != nil, "saw \(watcher.received)")
        try await change("overwrite", directory.path, #"{"name": "b", "number": 2}"#)
        #expect(await watcher.next { $0 == .contents(.single(b)) } != nil, "saw \(watcher.received)")
        await watcher.stop()
    }

    @Test(.enabled(if: WatchResources.countable, "counts inotify descriptors and threads in /proc"))
    func cancellingReleasesTheDescriptorAndTheThread() async throws {
        #expect(await WatchResources.settle(descriptors: 0, threads: 0), "nothing is watched before")
        let directory = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        let link = directory.file("watched.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: other.file("watched.json").path)

        let file = try await watch(directory)
        var store = Watcher(FileStore<Watched>(url: other.file("records.json")).changes())
        #expect(await store.next() == .success([]))
        #expect(WatchResources.inotifyDescriptors == 1, "one inotify instance serves every watch")
        #expect(WatchResources.watchThreads == 1, "one thread serves every watch")

        await file.stop()
        #expect(WatchResources.inotifyDescriptors == 1, "the other watch keeps the instance")
        await store.stop()
        #expect(await WatchResources.settle(descriptors: 0, threads: 0), "the last watch's end closes everything")

        // And a new watch starts them again.
        let again = try await watch(directory)
        #expect(WatchResources.inotifyDescriptors == 1)
        await again.stop()
        #expect(await WatchResources.settle(descriptors: 0, threads: 0))
    }

    @Test func aFileStoreYieldsItsRecordsAfterAnotherProcessInserts() async throws {
        let directory = try TemporaryDirectory()
        var watcher = Watcher(withArchiveDirectory(directory.url) { FileStore<Watched>() }.changes())
        #expect(await watcher.next() == .success([]), "a missing file is an empty store")
        try await change("insert", directory.path, "a", "1")
        #expect(await watcher.next { $0 == .success([a]) } != nil, "saw \(watcher.received)")
        try await change("overwrite", directory.path, "{")
        #expect(await watcher.next { (try? $0.get()) == nil } != nil, "a broken file yields its error")
        await watcher.stop()
    }

    @Test func aMemoryStoreYieldsItsRecordsAfterEachWrite() async throws {
        let store = MemoryStore<Watched>()
        var watcher = Watcher(store.changes())
        #expect(await watcher.next() == .success([]))
        try await store.insert(a)
        #expect(await watcher.next() == .success([a]))
        try await store.insert(a)  // Changes nothing, so yields nothing; the next write does.
        try await store.insert(b)
        #expect(await watcher.next() == .success([a, b]))
        await watcher.stop()
    }
}
