import Foundation
import Persistible
import Testing

/// A program's settings: one value, replaced as it changes.
struct Settings: Codable, Hashable, Persistible {
    var theme = "light"
    var fontSize = 12
}

/// A record that is edited after it is saved; its `id` says which record it is.
struct Todo: Codable, Hashable, Identifiable, Persistible {
    var id: Int
    var title: String
    var done = false
}

/// A type whose name starts with a vowel.
struct Item: Codable, Hashable, Persistible {
    var name: String
}

/// The counter that the SettingsWriter child process increments; the same declaration lives there.
struct SharedCounter: Codable, Hashable, Persistible {
    var value: Int
}

/// What tells a rewritten file from one left alone: its inode and modification time, which a write by rename
/// changes even when the bytes are the same.
struct FileVersion: Equatable {
    let inode: UInt64
    let seconds: Int
    let nanoseconds: Int

    init(of url: URL) throws {
        var status = stat()
        guard stat(url.path, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        inode = UInt64(status.st_ino)
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        seconds = Int(modified.tv_sec)
        nanoseconds = Int(modified.tv_nsec)
    }
}

/// Files that no type here can read, with what makes each unreadable.
let unreadableContents: [String] = [
    "not json",
    "{\"theme\": \"dark\"",
    "{\"theme\": 3, \"fontSize\": 12}",
    "",
    "[{\"id\": 1}]",
]

/// Runs each operation on the unreadable file at `url`, expecting each to throw `unreadable` and leave the file's
/// bytes as `original`.
func expectUnreadableFileKept(
    at url: URL,
    original: Data,
    by operations: [() throws -> Void],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    // A file that opens an array is refused as one by an operation on a single value, whatever its records hold.
    let opensArray = original.first == UInt8(ascii: "[")
    for operation in operations {
        let error = persistenceError(operation)
        if opensArray, case .holdsArray? = error?.reason {
            #expect((try? Data(contentsOf: url)) == original, sourceLocation: sourceLocation)
            continue
        }
        guard case .unreadable = error?.reason else {
            Issue.record("expected unreadable, got \(String(describing: error))", sourceLocation: sourceLocation)
            continue
        }
        #expect((try? Data(contentsOf: url)) == original, sourceLocation: sourceLocation)
    }
}
