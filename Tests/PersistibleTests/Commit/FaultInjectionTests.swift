import Foundation
import Testing

@testable import Persistible

/// Every system call of every durable write path, made to fail in turn: the operation throws a
/// ``PersistenceError`` or succeeds, and either way the file is the one before or after it, with no temporary left.
@Suite struct FaultInjectionTests {
    /// The real calls, with the `failing`-th call that can fail (counting from 0) failing with `code`; and the count
    /// of such calls made so far.
    final class Faults: Sendable {
        private let made = Locked(0)
        let failing: Int?
        let code: Int32

        init(failing: Int?, code: Int32 = EIO) {
            self.failing = failing
            self.code = code
        }

        var count: Int { made.withLock { $0 } }

        /// Whether this call is the one to fail; counts it either way.
        private func fails() -> Bool {
            made.withLock { count in
                defer { count += 1 }
                return count == failing
            }
        }

        var systemCalls: SystemCalls {
            let live = SystemCalls.live
            var calls = live
            let code = code
            func failing<each Argument>(
                _ call: @escaping @Sendable (repeat each Argument) -> Int32
            ) -> @Sendable (repeat each Argument) -> Int32 {
                { [self] (argument: repeat each Argument) in
                    guard fails() else { return call(repeat each argument) }
                    errno = code
                    return -1
                }
            }
            func failing<each Argument>(
                _ call: @escaping @Sendable (repeat each Argument) -> Int
            ) -> @Sendable (repeat each Argument) -> Int {
                { [self] (argument: repeat each Argument) in
                    guard fails() else { return call(repeat each argument) }
                    errno = code
                    return -1
                }
            }
            calls.open = failing(live.open)
            calls.close = failing(live.close)
            calls.read = failing(live.read)
            calls.pwrite = failing(live.pwrite)
            calls.ftruncate = failing(live.ftruncate)
            calls.fchown = failing(live.fchown)
            calls.fchmod = failing(live.fchmod)
            calls.fullSync = failing(live.fullSync)
            calls.dataSync = failing(live.dataSync)
            calls.rename = failing(live.rename)
            calls.renameNoReplace = failing(live.renameNoReplace)
            calls.link = failing(live.link)
            calls.unlink = failing(live.unlink)
            calls.mkdir = failing(live.mkdir)
            calls.flock = failing(live.flock)
            calls.openAt = failing(live.openAt)
            calls.unlinkAt = failing(live.unlinkAt)
            calls.renameAt = failing(live.renameAt)
            calls.statAt = { [self] directory, name, status in
                guard fails() else { return live.statAt(directory, name, &status) }
                errno = code
                return -1
            }
            calls.setAccessControlList = failing(live.setAccessControlList)
            calls.fstat = { [self] descriptor, status in
                guard fails() else { return live.fstat(descriptor, &status) }
                errno = code
                return -1
            }
            calls.stat = { [self] path, status in
                guard fails() else { return live.stat(path, &status) }
                errno = code
                return -1
            }
            calls.lstat = { [self] path, status in
                guard fails() else { return live.lstat(path, &status) }
                errno = code
                return -1
            }
            calls.ownership = { [self] descriptor, path in
                guard fails() else { return live.ownership(descriptor, path) }
                errno = code
                return nil
            }
            calls.readlink = { [self] path in
                guard fails() else { return live.readlink(path) }
                errno = code
                return nil
            }
            calls.directoryEntries = { [self] path in
                guard fails() else { return live.directoryEntries(path) }
                errno = code
                return nil
            }
            return calls
        }
    }

    enum Outcome: Hashable {
        case missing
        case contents(PersistenceData<CrashRecord>)
        case unreadable
    }

    static func load(_ folder: URL) -> Outcome {
        withArchiveDirectory(folder) {
            do {
                return .contents(try CrashRecord.load())
            } catch let error as PersistenceError where error.reason == .fileNotFound {
                return .missing
            } catch {
                return .unreadable
            }
        }
    }

    @Test(arguments: WritePath.all.indices, [EIO, ENOSPC])
    func everyFailedCallLeavesTheOldOrTheNewFileAndNoTemporary(_ index: Int, code: Int32) throws {
        let (name, subdirectory, prepare, operation) = WritePath.all[index]
        // Run once whole, to learn the file after the operation and how many calls it makes.
        let (after, calls) = try Self.run(subdirectory, prepare, operation, faults: Faults(failing: nil))
        #expect(calls > 3, "\(name)")
        var thrown = 0
        for failing in 0..<calls {
            let faults = Faults(failing: failing, code: code)
            let directory = try TemporaryDirectory()
            let folder = subdirectory.isEmpty ? directory.url : directory.url.appendingPathComponent(subdirectory)
            try withArchiveDirectory(folder, operation: prepare)
            let before = Self.load(folder)
            var error: (any Error)?
            do {
                try SystemCalls.$current.withValue(faults.systemCalls) {
                    try withArchiveDirectory(folder, operation: operation)
                }
            } catch let caught {
                error = caught
                thrown += 1
            }
            let found = Self.load(folder)
            let context = "\(name), call \(failing) of \(calls) failing: \(error.map { "\($0)" } ?? "no error")"
            if let error {
                #expect(error is PersistenceError, "\(context)")
                #expect([before, after].contains(found), "\(context): \(found)")
            } else {
                #expect(found == after, "\(context): \(found)")
            }
            let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            #expect(!left.contains { $0.hasSuffix(".tmp") }, "\(context): \(left)")
        }
        #expect(thrown > 0, "\(name)")
    }

    /// The file after the operation, and how many calls that can fail it made, run on `faults`' calls.
    private static func run(
        _ subdirectory: String, _ prepare: () throws -> Void, _ operation: () throws -> Void, faults: Faults
    ) throws -> (Outcome, Int) {
        let directory = try TemporaryDirectory()
        let folder = subdirectory.isEmpty ? directory.url : directory.url.appendingPathComponent(subdirectory)
        try withArchiveDirectory(folder, operation: prepare)
        try SystemCalls.$current.withValue(faults.systemCalls) {
            try withArchiveDirectory(folder, operation: operation)
        }
        return (load(folder), faults.count)
    }
}

/// The search for what writers of 0.1.0 left reads the directory once in a lock file's life, and never for a file
/// that this version made: a directory of many files costs later saves nothing.
@Suite struct LeftoversOf010Tests {
    /// How many times `operation` read a directory's names.
    static func directoryReads(_ operation: () throws -> Void) throws -> Int {
        let reads = Locked(0)
        var calls = SystemCalls.live
        calls.directoryEntries = { path in
            reads.withLock { $0 += 1 }
            return SystemCalls.live.directoryEntries(path)
        }
        try SystemCalls.$current.withValue(calls, operation: operation)
        return reads.withLock { $0 }
    }

    @Test func onlyTheFirstSaveOnALockFileOf010ReadsTheDirectory() throws {
        let directory = try TemporaryDirectory()
        try withArchiveDirectory(directory.url) {
            #expect(try Self.directoryReads { try CrashRecord(id: 1, text: "new file").saveToFile() } == 0)
            #expect(try Data(contentsOf: directory.file("records.json.lock")).count == 1)
            // As 0.1.0 leaves a file it wrote.
            try Data().write(to: directory.file("records.json.lock"))
            #expect(try Self.directoryReads { try CrashRecord(id: 2, text: "upgraded").saveToFile() } == 1)
            #expect(try Self.directoryReads { try CrashRecord(id: 3, text: "later").saveToFile() } == 0)
        }
    }

    /// A search that could not read the directory, or remove what it found, is made again by the next save.
    @Test func aSearchThatFailedIsMadeAgain() throws {
        let directory = try TemporaryDirectory()
        try Data().write(to: directory.file("records.json.lock"))
        var unreadable = SystemCalls.live
        unreadable.directoryEntries = { _ in
            errno = EACCES
            return nil
        }
        try withArchiveDirectory(directory.url) {
            try SystemCalls.$current.withValue(unreadable) { try CrashRecord(id: 1, text: "first").saveToFile() }
            #expect(try Data(contentsOf: directory.file("records.json.lock")).isEmpty)
            #expect(try Self.directoryReads { try CrashRecord(id: 2, text: "second").saveToFile() } == 1)
            #expect(try Data(contentsOf: directory.file("records.json.lock")).count == 1)
        }
    }
}
