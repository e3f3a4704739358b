import Foundation

/// A directory of its own for one run's files.
///
/// `mkdtemp` makes a new directory with an unpredictable name atomically, so two runs at once, or a leftover from a
/// killed run, never share a file. It sits in the system's temporary directory, which must be a real disk for the
/// durable numbers to mean anything (on tmpfs an fsync costs nothing).
struct Sandbox {
    let url: URL

    struct CreationFailed: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { "mkdtemp failed: \(String(cString: strerror(errno)))" }
    }

    init() throws {
        var base = NSTemporaryDirectory()
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/persistible-benchmarks-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let start = buffer.baseAddress, mkdtemp(start) != nil else { return nil }
            return String(cString: start)
        }
        guard let path else { throw CreationFailed(errno: errno) }
        url = URL(fileURLWithPath: path, isDirectory: true)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes a file between repetitions; a file that is already gone is what was wanted.
    static func removeFile(_ url: URL) {
        unlink(url.path)
    }
}
