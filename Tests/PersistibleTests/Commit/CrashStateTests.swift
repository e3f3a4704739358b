import Foundation
import Testing

@testable import Persistible

/// Every durable write path, checked at every point a power loss can stop it: each state the crash model of
/// ``CrashTrace`` allows must load as the file before the operation or after it, and once the operation has
/// returned with full durability, as the file after it.
@Suite struct CrashStateTests {
    struct NoSync: Codable, Hashable, Identifiable, Persistible {
        var id: Int
        var text: String
        static var fileName: String { "records" }
        static var cachesArchive: Bool { false }
        static var archiveDurability: Durability { .noSync }
    }

    /// What a file holds, as a load sees it.
    enum Outcome<Value: Hashable>: Hashable {
        case missing
        case contents(PersistenceData<Value>)
        case unreadable(String)
    }

    /// How an operation's crash states turned out.
    struct Report {
        var states = 0
        /// Whether some state loaded as the file after the operation: the check saw the operation's whole effect.
        var reachedAfter = false
        var clones = 0
        var failures: [String] = []
    }

    /// Runs `operation` on a tree that `prepare` made, recording its calls, and loads every crash state.
    ///
    /// - Parameters:
    ///   - subdirectory: Where the file is, relative to the tree's root.
    ///   - calls: Which flushes reach the record; leaving one out puts back a missing flush on purpose.
    static func check<Value: Persistible & Codable & Hashable>(
        _ type: Value.Type,
        in subdirectory: String = "",
        recordingFileFlushes: Bool = true,
        recordingDirectoryFlushes: Bool = true,
        prepare: () throws -> Void = {},
        _ operation: () throws -> Void
    ) throws -> Report {
        let directory = try TemporaryDirectory()
        let location = subdirectory.isEmpty ? directory.url : directory.url.appendingPathComponent(subdirectory)
        let load = { (root: URL) -> Outcome<Value> in
            let folder = subdirectory.isEmpty ? root : root.appendingPathComponent(subdirectory)
            return withArchiveDirectory(folder) {
                do {
                    return .contents(try Value.load())
                } catch let error as PersistenceError where error.reason == .fileNotFound {
                    return .missing
                } catch {
                    return .unreadable("\(error)")
                }
            }
        }
        try withArchiveDirectory(location, operation: prepare)
        let before = load(directory.url)
        let trace = try CrashTrace(root: directory.path)
        let calls = trace.systemCalls(
            recordingFileFlushes: recordingFileFlushes, recordingDirectoryFlushes: recordingDirectoryFlushes
        )
        try SystemCalls.$current.withValue(calls) {
            try withArchiveDirectory(location, operation: operation)
        }
        let after = load(directory.url)
        var report = Report(clones: trace.clones)
        let count = trace.changes.count
        for point in 0...count {
            try trace.forEachCrashState(after: point) { root in
                defer { try? FileManager.default.removeItem(atPath: root) }
                report.states += 1
                let found = load(URL(fileURLWithPath: root, isDirectory: true))
                if found == after { report.reachedAfter = true }
                let returned = point == count && Value.archiveDurability == .full
                let allowed = returned ? [after] : [before, after]
                if !allowed.contains(found) {
                    report.failures.append(
                        "after \(point) of \(count) changes: \(found), expected \(returned ? "" : "\(before) or ")\(after)"
                    )
                }
            }
        }
        return report
    }

    @Test(arguments: WritePath.all.indices)
    func everyCrashStateOfADurableWriteIsTheOldOrTheNewFile(_ index: Int) throws {
        let (name, subdirectory, prepare, operation) = WritePath.all[index]
        let report = try Self.check(CrashRecord.self, in: subdirectory, prepare: prepare, operation)
        #expect(report.states > 1, "\(name)")
        #expect(report.reachedAfter, "\(name)")
        #expect(report.failures.isEmpty, "\(name): \(report.failures.prefix(3))")
        if name == "clone append" { #expect(report.clones == 1) }
    }

    @Test func everyCrashStateOfASaveWithoutSyncIsASavedVersion() throws {
        for (prepare, operation) in Self.noSyncPaths {
            let report = try Self.check(NoSync.self, prepare: prepare, operation)
            #expect(report.states > 1)
            #expect(report.reachedAfter)
            #expect(report.failures.isEmpty, "\(report.failures.prefix(3))")
        }
    }

    static let noSyncPaths: [(prepare: @Sendable () throws -> Void, operation: @Sendable () throws -> Void)] = [
        ({}, { try NoSync(id: 0, text: "first").saveToFile() }),
        ({ try NoSync(id: 0, text: "first").saveToFile() }, { try NoSync(id: 1, text: "second").saveToFile() }),
        ({ try [NoSync(id: 0, text: "a"), NoSync(id: 1, text: "b")].saveToFile() }, {
            try NoSync(id: 0, text: "edited").saveToFile()
        }),
    ]

    // MARK: - The check itself

    /// A save without sync that renamed its temporary before flushing its data, as this package once did, leaves a
    /// file that is empty or cut short where a saved version stood: the check must find it.
    @Test func theCheckFindsASaveWithoutSyncThatRenamesUnflushedData() throws {
        let report = try Self.check(NoSync.self, recordingFileFlushes: false, prepare: {
            try NoSync(id: 0, text: "first").saveToFile()
        }) {
            try NoSync(id: 1, text: "second").saveToFile()
        }
        #expect(report.failures.contains { $0.contains("unreadable") }, "\(report.failures.prefix(3))")
    }

    /// A durable save that returned without flushing its directory can lose its rename: the check must find the old
    /// file where the new one was promised.
    @Test func theCheckFindsADurableSaveThatDoesNotFlushItsDirectory() throws {
        let report = try Self.check(CrashRecord.self, recordingDirectoryFlushes: false, prepare: {
            try WritePath.first.saveToFile()
        }) {
            try CrashRecord(id: 9, text: "new").saveToFile()
        }
        let count = report.failures.count
        #expect(count > 0)
        #expect(report.failures.allSatisfy { $0.contains("expected contents") && !$0.contains(" or ") }, "\(count)")
    }
}
