import Foundation
import Persistible

/// A fresh directory for one test, readable by its owner only, removed with everything in it when the test ends.
struct TemporaryDirectory: ~Copyable {
    let url: URL
    /// The file system mounted for this directory alone, if any; it goes with the directory.
    let volume: XFSVolume?

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/persistible-test.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        url = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        volume = nil
    }

    /// The root of `volume`, unmounted when the directory goes.
    init(mounted volume: XFSVolume) {
        url = volume.root
        self.volume = volume
    }

    deinit {
        // A mounted volume is unmounted and removed whole.
        if volume == nil {
            try? FileManager.default.removeItem(at: url)
        }
    }

    var path: String { url.path }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }

    /// Every name in the directory, sorted.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// The names that look like a temporary some writer left behind.
    func temporaries() throws -> [String] {
        try contents().filter { $0.hasSuffix(".tmp") || $0.contains(".nosync") }
    }
}

/// Runs `body` with a fresh temporary directory as the archive directory of types that do not declare their own.
func inTemporaryDirectory<Result>(_ body: (borrowing TemporaryDirectory) throws -> Result) throws -> Result {
    let directory = try TemporaryDirectory()
    return try withArchiveDirectory(directory.url) { try body(directory) }
}
