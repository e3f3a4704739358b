import Foundation
@testable import Persistible

/// The system calls of one operation, recorded as it runs on the real file system, and every state of the directory
/// tree that a power loss during or after it can leave, in the model of ALICE (OSDI 2014) and CrashMonkey (OSDI 2018).
///
/// A write reaches the disk once its file is flushed (`fsync`, `fdatasync`); until then any prefix of a file's
/// unflushed writes may have reached it. An entry made, renamed or removed in a directory reaches the disk once the
/// directory is flushed; until then any prefix of the directory's unflushed changes may have. Files and directories
/// go their own ways: each one's prefix is chosen apart from the others'. What was on disk before the operation
/// began counts as flushed.
///
/// The file system here cannot clone, so the trace stands in for one: a clone is recorded as the write of the bytes
/// it shares, and made by writing them; and each file reports a device of the trace's own, which no earlier refusal
/// to clone was remembered for.
final class CrashTrace: Sendable {
    enum Node: Hashable {
        case file(Int)
        case directory
    }

    enum Change {
        case write(file: Int, offset: Int, bytes: [UInt8])
        case truncate(file: Int, length: Int)
        case flushFile(Int)
        case flushDirectory(String)
        /// A change to the entries of `directory`: `path` now names `node`, or nothing.
        case entry(directory: String, path: String, node: Node?)
        /// A rename within `directory`, which reaches the disk whole or not at all.
        case rename(directory: String, from: String, to: String)
    }

    private struct State {
        var changes: [Change] = []
        var entries: [String: Node] = [:]
        var descriptors: [Int32: (path: String, node: Node)] = [:]
        var nextFile = 0
        var clones = 0
    }

    let root: String
    private let initialEntries: [String: Node]
    private let initialContents: [Int: [UInt8]]
    private let state: Locked<State>
    private let fakeDevice: UInt64

    /// Starts a trace of the tree at `root`, taking what is there now as what is on the disk.
    init(root: String) throws {
        self.root = Self.normalized(root)
        var entries: [String: Node] = [self.root: .directory]
        var contents: [Int: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: self.root)
        while let relative = enumerator?.nextObject() as? String {
            let path = self.root + "/" + relative
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            if status.isDirectory {
                entries[path] = .directory
            } else if status.isRegularFile {
                let id = contents.count
                entries[path] = .file(id)
                contents[id] = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        initialEntries = entries
        initialContents = contents
        state = Locked(State(entries: entries, nextFile: contents.count))
        fakeDevice = UInt64.random(in: 1 << 40..<1 << 48)
    }

    static func normalized(_ path: String) -> String {
        var path = path
        while path.contains("//") { path = path.replacingOccurrences(of: "//", with: "/") }
        return path
    }

    private static func parent(_ path: String) -> String {
        (path as NSString).deletingLastPathComponent
    }

    var changes: [Change] { state.withLock { $0.changes } }

    /// How many clones the operation made.
    var clones: Int { state.withLock { $0.clones } }

    // MARK: - Recording

    /// The real calls, with every change under `root` recorded. A flush left out of the record counts as never
    /// made, so that a test can put a missing flush back in on purpose and see the check find it.
    func systemCalls(
        recordingFileFlushes: Bool = true,
        recordingDirectoryFlushes: Bool = true
    ) -> SystemCalls {
        let live = SystemCalls.live
        var calls = live
        let root = root
        let inTree: @Sendable (String) -> Bool = { path in path == root || path.hasPrefix(root + "/") }
        calls.open = { [self] rawPath, flags, mode in
            let path = Self.normalized(rawPath)
            let existed = state.withLock { $0.entries[path] != nil }
            let descriptor = live.open(rawPath, flags, mode)
            guard descriptor >= 0, inTree(path) else { return descriptor }
            let saved = errno
            state.withLock { state in
                if let node = state.entries[path], existed || flags & O_CREAT == 0 {
                    state.descriptors[descriptor] = (path, node)
                } else if flags & O_CREAT != 0 {
                    let node = Node.file(state.nextFile)
                    state.nextFile += 1
                    state.entries[path] = node
                    state.descriptors[descriptor] = (path, node)
                    state.changes.append(.entry(directory: Self.parent(path), path: path, node: node))
                }
            }
            errno = saved
            return descriptor
        }
        calls.close = { [self] descriptor in
            state.withLock { _ = $0.descriptors.removeValue(forKey: descriptor) }
            return live.close(descriptor)
        }
        calls.pwrite = { [self] descriptor, bytes, count, offset in
            let written = live.pwrite(descriptor, bytes, count, offset)
            if written > 0 {
                let saved = errno
                state.withLock { state in
                    guard case .file(let id)? = state.descriptors[descriptor]?.node else { return }
                    let data = Array(UnsafeRawBufferPointer(start: bytes, count: written))
                    state.changes.append(.write(file: id, offset: Int(offset), bytes: data))
                }
                errno = saved
            }
            return written
        }
        calls.ftruncate = { [self] descriptor, length in
            let result = live.ftruncate(descriptor, length)
            if result == 0 {
                state.withLock { state in
                    guard case .file(let id)? = state.descriptors[descriptor]?.node else { return }
                    state.changes.append(.truncate(file: id, length: Int(length)))
                }
            }
            return result
        }
        let flush: @Sendable (Int32, @Sendable (Int32) -> Int32) -> Int32 = { [self] descriptor, call in
            let result = call(descriptor)
            if result == 0 {
                state.withLock { state in
                    switch state.descriptors[descriptor] {
                    case (_, .file(let id))?:
                        if recordingFileFlushes { state.changes.append(.flushFile(id)) }
                    case (let path, .directory)?:
                        if recordingDirectoryFlushes { state.changes.append(.flushDirectory(path)) }
                    case nil:
                        break
                    }
                }
            }
            return result
        }
        calls.fullSync = { flush($0, live.fullSync) }
        calls.dataSync = { flush($0, live.dataSync) }
        let rename: @Sendable (String, String, @Sendable (String, String) -> Int32) -> Int32 = { [self] rawFrom, rawTo, call in
            let result = call(rawFrom, rawTo)
            let (from, to) = (Self.normalized(rawFrom), Self.normalized(rawTo))
            if result == 0, inTree(from) {
                state.withLock { state in
                    state.entries[to] = state.entries.removeValue(forKey: from)
                    // One change, so that no prefix holds the file under both names or neither.
                    precondition(Self.parent(from) == Self.parent(to), "a rename across directories")
                    state.changes.append(.rename(directory: Self.parent(to), from: from, to: to))
                }
            }
            return result
        }
        calls.rename = { rename($0, $1, live.rename) }
        calls.renameNoReplace = { rename($0, $1, live.renameNoReplace) }
        calls.link = { [self] rawFrom, rawTo in
            let result = live.link(rawFrom, rawTo)
            let (from, to) = (Self.normalized(rawFrom), Self.normalized(rawTo))
            if result == 0, inTree(to) {
                state.withLock { state in
                    state.entries[to] = state.entries[from]
                    state.changes.append(.entry(directory: Self.parent(to), path: to, node: state.entries[from]))
                }
            }
            return result
        }
        calls.unlink = { [self] rawPath in
            let result = live.unlink(rawPath)
            let path = Self.normalized(rawPath)
            if result == 0, inTree(path) {
                state.withLock { state in
                    state.entries[path] = nil
                    state.changes.append(.entry(directory: Self.parent(path), path: path, node: nil))
                }
            }
            return result
        }
        calls.mkdir = { [self] rawPath, mode in
            let result = live.mkdir(rawPath, mode)
            let path = Self.normalized(rawPath)
            if result == 0, inTree(path) {
                state.withLock { state in
                    state.entries[path] = .directory
                    state.changes.append(.entry(directory: Self.parent(path), path: path, node: .directory))
                }
            }
            return result
        }
        // The steps relative to an open directory are recorded as the same steps on its entries' paths, and made so.
        let place: @Sendable (Int32, String) -> String = { [self] directory, name in
            guard directory != AT_FDCWD else { return name }
            let known = state.withLock { $0.descriptors[directory]?.path }
            let path = known ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(directory)"))
            return (path ?? "/proc/self/fd/\(directory)") + "/" + name
        }
        calls.openAt = { [calls] directory, name, flags, mode in calls.open(place(directory, name), flags, mode) }
        calls.unlinkAt = { [calls] directory, name in calls.unlink(place(directory, name)) }
        calls.renameAt = { [calls] directory, from, to in calls.rename(place(directory, from), place(directory, to)) }
        calls.cloneRange = { [calls, self] source, destination, length in
            state.withLock { $0.clones += 1 }
            var bytes = [UInt8](repeating: 0, count: length)
            guard pread(source, &bytes, length, 0) == length else { return -1 }
            return calls.pwrite(destination, bytes, length, 0) == length ? 0 : -1
        }
        let device = fakeDevice
        let fake: @Sendable (inout stat) -> Void = { status in status.st_dev = .init(truncatingIfNeeded: device) }
        calls.fstat = { descriptor, status in
            let result = live.fstat(descriptor, &status)
            if result == 0 { fake(&status) }
            return result
        }
        calls.stat = { path, status in
            let result = live.stat(path, &status)
            if result == 0, inTree(Self.normalized(path)) { fake(&status) }
            return result
        }
        calls.lstat = { path, status in
            let result = live.lstat(path, &status)
            if result == 0, inTree(Self.normalized(path)) { fake(&status) }
            return result
        }
        calls.statAt = { directory, name, status in
            let path = place(directory, name)
            let result = live.lstat(path, &status)
            if result == 0, inTree(Self.normalized(path)) { fake(&status) }
            return result
        }
        return calls
    }

    // MARK: - Crash states

    /// Each state a power loss can leave after the first `count` changes, made as a tree of its own and passed to
    /// `body` with its root.
    func forEachCrashState(after count: Int, _ body: (String) throws -> Void) throws {
        let changes = Array(self.changes.prefix(count))
        var lastFileFlush: [Int: Int] = [:]
        var lastDirectoryFlush: [String: Int] = [:]
        for (index, change) in changes.enumerated() {
            switch change {
            case .flushFile(let id): lastFileFlush[id] = index
            case .flushDirectory(let path): lastDirectoryFlush[path] = index
            default: break
            }
        }
        // The changes that may or may not have reached the disk, by what they belong to, in order.
        var unflushed: [String: [Int]] = [:]
        for (index, change) in changes.enumerated() {
            switch change {
            case .write(let id, _, _), .truncate(let id, _):
                if index > lastFileFlush[id, default: -1] { unflushed["file \(id)", default: []].append(index) }
            case .entry(let directory, _, _), .rename(let directory, _, _):
                if index > lastDirectoryFlush[directory, default: -1] {
                    unflushed["directory \(directory)", default: []].append(index)
                }
            default:
                break
            }
        }
        let groups = unflushed.keys.sorted().map { unflushed[$0]! }
        var kept = Array(repeating: 0, count: groups.count)
        while true {
            var lost = Set<Int>()
            for (group, count) in zip(groups, kept) { lost.formUnion(group.dropFirst(count)) }
            try body(try materialize(changes.enumerated().filter { !lost.contains($0.offset) }.map(\.element)))
            // The next combination of prefixes, like an odometer.
            var position = 0
            while position < groups.count {
                kept[position] += 1
                if kept[position] <= groups[position].count { break }
                kept[position] = 0
                position += 1
            }
            if position == groups.count { return }
        }
    }

    /// The tree that `changes`, applied to what was on the disk, leave, made in a new temporary directory.
    private func materialize(_ changes: [Change]) throws -> String {
        var entries = initialEntries
        var contents = initialContents
        for change in changes {
            switch change {
            case .write(let id, let offset, let bytes):
                var data = contents[id] ?? []
                if data.count < offset + bytes.count {
                    data += repeatElement(0, count: offset + bytes.count - data.count)
                }
                data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
                contents[id] = data
            case .truncate(let id, let length):
                var data = contents[id] ?? []
                data = data.count > length
                    ? Array(data.prefix(length)) : data + repeatElement(0, count: length - data.count)
                contents[id] = data
            case .entry(_, let path, let node):
                entries[path] = node
            case .rename(_, let from, let to):
                entries[to] = entries.removeValue(forKey: from)
            case .flushFile, .flushDirectory:
                break
            }
        }
        var template = Array((NSTemporaryDirectory() + "/persistible-crash.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let target = String(cString: made)
        // Parents first; an entry whose directory did not reach the disk is not reachable.
        for path in entries.keys.sorted(by: { $0.count < $1.count }) where path != root {
            let parent = Self.parent(path)
            guard parent == root || entries[parent] == .directory else { continue }
            let destination = target + path.dropFirst(root.count)
            guard parent == root || FileManager.default.fileExists(atPath: target + parent.dropFirst(root.count))
            else { continue }
            switch entries[path]! {
            case .directory:
                try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
            case .file(let id):
                try Data(contents[id] ?? []).write(to: URL(fileURLWithPath: destination))
            }
        }
        return target
    }
}

/// A record for the tests that stop or fail an operation part way: uncached, so that each load reads the file.
struct CrashRecord: Codable, Hashable, Identifiable, Persistible {
    var id: Int
    var text: String
    static var fileName: String { "records" }
    static var cachesArchive: Bool { false }
}

/// Every durable write path, by name, with the directory it works in (relative to the test's), what it starts from,
/// and the operation.
enum WritePath {
    static let first = (0..<3).map { CrashRecord(id: $0, text: "record \($0)") }

    /// Each durable write path, by name, with what it starts from.
    static let all: [(String, subdirectory: String, prepare: @Sendable () throws -> Void, operation: @Sendable () throws -> Void)] = [
        ("first save", "new/folder", {}, { try first[0].saveToFile() }),
        ("first save of an array", "", {}, { try first.saveToFile() }),
        ("append", "", { try first.saveToFile() }, { try CrashRecord(id: 9, text: "new").saveToFile() }),
        (
            "clone append", "",
            // Large enough that whole blocks are shared with the file it replaces.
            { try (0..<200).map { CrashRecord(id: $0, text: String(repeating: "x", count: 40)) }.saveToFile() },
            { try CrashRecord(id: 900, text: "new").saveToFile() }
        ),
        ("edit", "", { try first.saveToFile() }, { try CrashRecord(id: 1, text: "edited").saveToFile() }),
        ("remove", "", { try first.saveToFile() }, { try first[1].removeFromFile() }),
        ("overwrite", "", { try first.saveToFile() }, { try [CrashRecord(id: 7, text: "only")].overwriteFile() }),
        (
            "settings update", "", { try first[0].saveToFile() },
            { try CrashRecord.update(default: CrashRecord(id: 0, text: "")) { $0.text = "updated" } }
        ),
        (
            "store write block", "", { try first.saveToFile() },
            {
                let store = FileStore<CrashRecord>(url: CrashRecord.archiveUrl)
                try store.write { writer in
                    writer.delete(first[0])
                    writer.insert(CrashRecord(id: 5, text: "inserted"))
                }
            }
        ),
        ("delete", "", { try first.saveToFile() }, { try CrashRecord.deleteFile() }),
        ("move aside", "", { try first.saveToFile() }, { _ = try CrashRecord.moveFileAside() }),
    ]
}
