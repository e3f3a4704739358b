import Foundation
import Observation
import Persistible
import Testing

/// Runs in the serialized watching suite, since it watches too.
extension WatchingTests {
    /// Waits until `condition` holds, checking after each turn of the main actor, for at most `timeout`.
    @MainActor
    private func eventually(within timeout: Duration = .seconds(1), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func anObservedArchiveFollowsAnotherProcessAndTellsItsObservers() async throws {
        let directory = try TemporaryDirectory()
        try withArchiveDirectory(directory.url) { try a.saveToFile() }
        let observed = withArchiveDirectory(directory.url) { ObservedArchive<Watched>() }
        #expect(observed.value == a, "the file is read when the object is made")

        let told = Told()
        withObservationTracking {
            _ = observed.values
        } onChange: {
            told.set()
        }
        try await change("save", directory.path, "b", "2")
        #expect(await eventually { observed.values == [a, b] }, "saw \(observed.values)")
        #expect(told.value, "observers are told")
        #expect(observed.value == nil, "an array has no single value")

        try await change("overwrite", directory.path, "[")
        #expect(await eventually { observed.error != nil })
        #expect(observed.values == [a, b], "the last good contents stay while the file is broken")

        try await change("delete", directory.path)
        #expect(await eventually { observed.contents == nil && observed.error == nil })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func anObservedArchiveShowsItsOwnWritesAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let observed = withArchiveDirectory(directory.url) { ObservedArchive<Watched>() }
        #expect(observed.contents == nil)
        #expect(try observed.update(default: a) { $0.number = 5 } == Watched(name: "a", number: 5))
        #expect(observed.value == Watched(name: "a", number: 5), "an update shows at once")
        #expect(try withArchiveDirectory(directory.url) { try Watched.loadFromFile() } == Watched(name: "a", number: 5))
        try observed.deleteFile()
        #expect(observed.contents == nil)
        try observed.save(a)
        #expect(observed.value == a)
        try observed.write { $0.insert(b) }
        #expect(observed.values == [a, b])
        #expect(try withArchiveDirectory(directory.url) { try Watched.loadListFromFile() } == [a, b])
        try observed.deleteFile()
        #expect(observed.contents == nil)
    }
}

/// A flag set from Observation's change handler, which may run on any thread.
final class Told {
    private var told = false
    private let lock = NSLock()

    func set() { lock.withLock { told = true } }
    var value: Bool { lock.withLock { told } }
}

// Every access to `told` holds `lock`.
extension Told: @unchecked Sendable {}
